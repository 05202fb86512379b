/**
 * Deribit DVOL history: `public/get_volatility_index_data` (REST, candles `[ts, open, high, low, close]` in vol
 * points, newest page first, `continuation` = the `end_timestamp` of the next, older page). Polled at start (and
 * daily) for BTC and ETH at resolution 3600, paging back DVOL_HISTORY_DAYS. Each candle becomes one `index` event
 * of kind `vol_index` at the candle START with the candle's OPEN (the DVOL at that instant), the same family and
 * index name (`btc_usd`) as the live `deribit_volatility_index.btc_usd` channel, so both land in index_prices and
 * the vol_index_1h roll-up (migration 058).
 */
import { isObj, num, obj, parseJson, rowId, symbolForBase } from '../../connector/parse-helpers.ts';
import type { MarketEvent, MarketSymbol } from '#schemas/events.ts';
import type { ParserContext, RestParseResult, RestPoller } from '../../connector/types.ts';

const VENUE = 'deribit';
/** How far back the start-up backfill pages (the /v2/options/range past rows reach six months + 30 days). */
export const DVOL_HISTORY_DAYS = 220;
export const DVOL_RESOLUTION_S = 3600;
const DAY_MS = 86_400_000;
/** Currencies with a DVOL (Deribit publishes btc_usd and eth_usd). */
const DVOL_CURRENCIES: Readonly<Record<string, string>> = { BTCUSDT: 'BTC', ETHUSDT: 'ETH' };

export function dvolHistoryUrl(rest: string, currency: string, endMs: number): string {
  const q = new URLSearchParams({
    currency,
    start_timestamp: '0',
    end_timestamp: String(Math.trunc(endMs)),
    resolution: String(DVOL_RESOLUTION_S),
  });
  return `${rest}/api/v2/public/get_volatility_index_data?${q.toString()}`;
}

/** One poller per tracked DVOL currency; the first page ends at "now" (a far-future end: the venue clips it). */
export function dvolHistoryPollers(rest: string, symbols: readonly MarketSymbol[]): RestPoller[] {
  const out: RestPoller[] = [];
  for (const s of symbols) {
    const currency = DVOL_CURRENCIES[s];
    if (currency === undefined) continue;
    out.push({
      id: `deribit:dvol-history:${currency}`,
      url: dvolHistoryUrl(rest, currency, 9_999_999_999_999),
      intervalMs: DAY_MS,
      parse: (body, ctx) => parseDvolHistory(body, ctx, rest, currency),
    });
  }
  return out;
}

function candleEvent(c: unknown, symbol: MarketSymbol, name: string, receivedAt: number): MarketEvent | null {
  if (!Array.isArray(c) || c.length < 5) return null;
  const ts: unknown = c[0];
  const open: unknown = c[1];
  if (typeof ts !== 'number' || typeof open !== 'number' || !Number.isFinite(ts) || !Number.isFinite(open) || open <= 0) return null;
  return {
    type: 'index',
    event: { venue: VENUE, symbol, ts, receivedAt, id: rowId(VENUE, 'vol_index', name, ts), kind: 'vol_index', name, value: open },
  };
}

/** Pure: one page -> vol_index events + the next (older) page while it is inside the history window. */
export function parseDvolHistory(body: string, ctx: ParserContext, rest: string, currency: string): RestParseResult {
  const msg = parseJson(body);
  if (!isObj(msg)) return { ok: false, reason: 'dvol history: body is not a JSON object' };
  const result = obj(msg, 'result');
  if (result === null || !Array.isArray(result['data'])) return { ok: false, reason: 'dvol history: result.data is not an array' };
  const symbol = symbolForBase(currency);
  if (symbol === null) return { ok: false, reason: `dvol history: untracked currency ${currency}` };
  const name = `${currency.toLowerCase()}_usd`;
  const events: MarketEvent[] = [];
  for (const c of result['data'] as unknown[]) {
    const e = candleEvent(c, symbol, name, ctx.receivedAt);
    if (e === null) return { ok: false, reason: 'dvol history: candle is not [ts, open, high, low, close] numbers' };
    events.push(e);
  }
  const cont = num(result, 'continuation');
  const floor = ctx.receivedAt - DVOL_HISTORY_DAYS * DAY_MS;
  const more = cont !== null && cont > floor && events.length > 0;
  return { ok: true, events, nextUrl: more ? dvolHistoryUrl(rest, currency, cont) : null };
}
