/**
 * Bybit gap fill: GET /v5/market/recent-trade?category=option&baseCoin=…&limit=1000 (public) returns the coin's
 * latest 1,000 option trades, newest first; the look-back is those 1,000 (no time range on this endpoint). The rows
 * carry the publicTrade fields under REST names (execId, time, price, size, side, symbol, isBlockTrade, iv, iP).
 * Option connections only: the linear and spot recent-trade endpoints need one request per symbol (not done).
 */
import { SYMBOL_BASE } from '../../schemas/events.ts';
import { isObj, obj, parseJson } from '../parse-helpers.ts';
import type { GapFillSpec, ParserContext, RestParseResult } from '../types.ts';
import { parseBybitRecentTrades } from './parse.ts';

export function parseRecentTradeRest(body: string, ctx: ParserContext): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'recent-trade: body is not a JSON object' };
  const result = obj(msg, 'result');
  const list = result === null ? null : result['list'];
  if (msg['retCode'] !== 0 || !Array.isArray(list)) return { ok: false, reason: `recent-trade: retCode ${String(msg['retCode'])} ${String(msg['retMsg'] ?? '')}`.trim() };
  const parsed = parseBybitRecentTrades(list, ctx);
  return parsed.ok ? { ok: true, events: parsed.events, nextUrl: null } : { ok: false, reason: `recent-trade: ${parsed.reason}` };
}

export function bybitGapFill(rest: string): GapFillSpec {
  return {
    covers: (connection) => connection.startsWith('option'),
    requests(symbols) {
      return [...new Set(symbols.map((s) => SYMBOL_BASE[s]))].map((base) => ({
        id: `bybit:gap-fill:${base}`,
        url: `${rest}/v5/market/recent-trade?category=option&baseCoin=${base}&limit=1000`,
        parse: parseRecentTradeRest,
      }));
    },
  };
}
