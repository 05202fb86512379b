/**
 * OKX gap fill (public endpoints, newest first, in the WebSocket channels' row shapes, so the frame parser's trade
 * mapper reads them; everything is on the one `public` connection):
 * - GET /api/v5/public/option-trades?instFamily=…: the family's latest 100 option trades. Both families of a coin
 *   are asked (coin-margined `BTC-USD`, USDT-margined `BTC-USD_UM`); one the venue does not list (code 51001)
 *   recovers nothing.
 * - GET /api/v5/market/trades?instId=…&limit=500: the latest 500 trades of each listed swap and spot pair.
 * The look-back is those rows: an outage during which more printed loses the older ones (documented in
 * ingest/README.md).
 */
import { SYMBOL_BASE } from '#schemas/events.ts';
import { arr, isObj, parseJson, str } from '../../connector/parse-helpers.ts';
import type { GapFillSpec, ParserContext, RestParseResult } from '../../connector/types.ts';
import { parseOkxTradeRows } from './parse.ts';

export function parseOptionTradesRest(body: string, ctx: ParserContext): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'option-trades: body is not a JSON object' };
  const code = str(msg, 'code');
  if (code === '51001') return { ok: true, events: [], nextUrl: null };
  const data = arr(msg, 'data');
  if (code !== '0' || data === null) return { ok: false, reason: `option-trades: code ${code ?? '?'} ${str(msg, 'msg') ?? ''}`.trim() };
  const parsed = parseOkxTradeRows(data, ctx);
  return parsed.ok ? { ok: true, events: parsed.events, nextUrl: null } : { ok: false, reason: `option-trades: ${parsed.reason}` };
}

/** GET /api/v5/market/trades: the instrument's latest trades (swap or spot, by the listed instrument). */
export function parseMarketTradesRest(body: string, ctx: ParserContext): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'market trades: body is not a JSON object' };
  const code = str(msg, 'code');
  const data = arr(msg, 'data');
  if (code !== '0' || data === null) return { ok: false, reason: `market trades: code ${code ?? '?'} ${str(msg, 'msg') ?? ''}`.trim() };
  const parsed = parseOkxTradeRows(data, ctx);
  return parsed.ok ? { ok: true, events: parsed.events, nextUrl: null } : { ok: false, reason: `market trades: ${parsed.reason}` };
}

export function okxGapFill(rest: string): GapFillSpec {
  return {
    covers: (connection) => connection === 'public',
    requests(symbols, _sinceMs, _untilMs, scope) {
      const options = symbols.flatMap((s) =>
        [`${SYMBOL_BASE[s]}-USD`, `${SYMBOL_BASE[s]}-USD_UM`].map((fam) => ({
          id: `okx:gap-fill:${fam}`,
          url: `${rest}/api/v5/public/option-trades?instFamily=${fam}`,
          parse: parseOptionTradesRest,
        })),
      );
      const linear = scope.instruments
        .filter((i) => i.venue === 'okx' && (i.kind === 'perp' || i.kind === 'spot') && i.active && symbols.includes(i.symbol))
        .map((i) => ({
          id: `okx:gap-fill:${i.instrument}`,
          url: `${rest}/api/v5/market/trades?instId=${i.instrument}&limit=500`,
          parse: parseMarketTradesRest,
        }));
      return [...options, ...linear];
    },
  };
}
