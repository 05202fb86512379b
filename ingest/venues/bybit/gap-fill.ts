/**
 * Bybit gap fill, GET /v5/market/recent-trade (public), newest first, no time range (the look-back is the row cap):
 * - option trades (`option-*` connections): `category=option&baseCoin=…&limit=1000`, the coin's latest 1,000;
 * - perp trades (`linear`): `category=linear&symbol=…&limit=1000`, the contract's latest 1,000;
 * - spot trades (`spot`): `category=spot&symbol=…&limit=60`, the pair's latest 60 (the endpoint's cap for spot).
 * The rows carry the publicTrade fields under REST names (execId, time, price, size, side, symbol, isBlockTrade; options
 * also iv, iP), mapped by the frame parser's trade mapper.
 */
import { SYMBOL_BASE, type Instrument, type MarketSymbol } from '#schemas/events.ts';
import { isObj, obj, parseJson } from '../../connector/parse-helpers.ts';
import type { GapFillSpec, ParserContext, RestParseResult, RestRequest } from '../../connector/types.ts';
import { parseBybitRecentTrades } from './parse.ts';

/** One recent-trade answer; spot rows are mapped as spot trades (the parser tells spot from perp by the connection). */
export function parseRecentTradeRest(body: string, ctx: ParserContext, connection?: 'spot'): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'recent-trade: body is not a JSON object' };
  const result = obj(msg, 'result');
  const list = result === null ? null : result['list'];
  if (msg['retCode'] !== 0 || !Array.isArray(list))
    return { ok: false, reason: `recent-trade: retCode ${String(msg['retCode'])} ${String(msg['retMsg'] ?? '')}`.trim() };
  const parsed = parseBybitRecentTrades(list, connection === undefined ? ctx : { ...ctx, connection });
  return parsed.ok ? { ok: true, events: parsed.events, nextUrl: null } : { ok: false, reason: `recent-trade: ${parsed.reason}` };
}

/** The listed, active linear contracts and USDT spot pairs of `symbols` (what the connections subscribe to). */
function linearOf(instruments: readonly Instrument[], symbols: readonly MarketSymbol[], kind: 'perp' | 'spot'): string[] {
  return instruments
    .filter(
      (i) =>
        i.venue === 'bybit' && i.kind === kind && i.active && symbols.includes(i.symbol) && (kind === 'perp' || i.quoteCurrency === 'USDT'),
    )
    .map((i) => i.instrument);
}

export function bybitGapFill(rest: string): GapFillSpec {
  return {
    covers: (connection) => connection.startsWith('option') || connection === 'linear' || connection === 'spot',
    requests(symbols, _sinceMs, _untilMs, scope) {
      const out: RestRequest[] = [];
      if ([...scope.connections].some((c) => c.startsWith('option'))) {
        for (const base of new Set(symbols.map((s) => SYMBOL_BASE[s]))) {
          out.push({
            id: `bybit:gap-fill:${base}`,
            url: `${rest}/v5/market/recent-trade?category=option&baseCoin=${base}&limit=1000`,
            parse: (b, ctx) => parseRecentTradeRest(b, ctx),
          });
        }
      }
      if (scope.connections.has('linear')) {
        for (const s of linearOf(scope.instruments, symbols, 'perp')) {
          out.push({
            id: `bybit:gap-fill:linear:${s}`,
            url: `${rest}/v5/market/recent-trade?category=linear&symbol=${s}&limit=1000`,
            parse: (b, ctx) => parseRecentTradeRest(b, ctx),
          });
        }
      }
      if (scope.connections.has('spot')) {
        for (const s of linearOf(scope.instruments, symbols, 'spot')) {
          out.push({
            id: `bybit:gap-fill:spot:${s}`,
            url: `${rest}/v5/market/recent-trade?category=spot&symbol=${s}&limit=60`,
            parse: (b, ctx) => parseRecentTradeRest(b, ctx, 'spot'),
          });
        }
      }
      return out;
    },
  };
}
