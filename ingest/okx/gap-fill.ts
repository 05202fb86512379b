/**
 * OKX gap fill: GET /api/v5/public/option-trades?instFamily=… (public) returns the family's latest 100 option
 * trades, newest first, in the `option-trades` channel's row shape, so the frame parser's trade mapper reads them.
 * The look-back is those 100 trades: an outage during which a family printed more loses the older ones (counted
 * as nothing recovered for them; documented in ingest/README.md). Both families of a coin are asked (coin-margined
 * `BTC-USD`, USDT-margined `BTC-USD_UM`); a family the venue does not list (code 51001) recovers nothing.
 */
import { SYMBOL_BASE } from '../../schemas/events.ts';
import { arr, isObj, parseJson, str } from '../parse-helpers.ts';
import type { GapFillSpec, ParserContext, RestParseResult } from '../types.ts';
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

export function okxGapFill(rest: string): GapFillSpec {
  return {
    covers: (connection) => connection === 'public',
    requests(symbols) {
      return symbols.flatMap((s) =>
        [`${SYMBOL_BASE[s]}-USD`, `${SYMBOL_BASE[s]}-USD_UM`].map((fam) => ({
          id: `okx:gap-fill:${fam}`,
          url: `${rest}/api/v5/public/option-trades?instFamily=${fam}`,
          parse: parseOptionTradesRest,
        })),
      );
    },
  };
}
