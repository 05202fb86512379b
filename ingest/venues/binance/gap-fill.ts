/**
 * Binance gap fill (public market-data endpoints, no key):
 * - perp trades (`market-*` connections, `<sym>@aggTrade`): GET /fapi/v1/aggTrades?symbol=&startTime=&endTime=&limit=1000
 *   over the outage (the venue allows at most 1 h per time-range request), then `fromId` = last `a` + 1 while a page
 *   is full, then the next hour; stops past the reopen + 5 s. A time range, so the look-back is the venue's history.
 * - spot trades (`spot-*` connections, `<sym>@trade`): GET /api/v3/trades?symbol=&limit=1000, the latest 1,000
 *   trades of the pair (the look-back).
 * - option trades (`public-*`, `<und>@optionTrade`): GET /eapi/v1/trades?symbol=&limit=500, the latest 500 trades of
 *   each listed option of the symbols, nearest expiry first. One instrument per request at weight 5 against the
 *   options API's 400 a minute per IP: the requests are paced (`optionPaceMs`, default 1 s: 300 weight a minute), so
 *   a chain of ~600 options takes ~10 min; fills run one after another (VenueRest), so overlapping outages never
 *   exceed the pace. The REST row's `id` is the per-option trade id the stream sends as `t` (the account trade list
 *   calls the same number `tradeId`); `side` -1/1 is the taker's; `qty` is signed (negative for sells). The REST row
 *   has no block flag: a block trade recovered this way is stored with block = false.
 * REST rows are rebuilt in the stream's shape and mapped by the frame parser's trade mapper.
 */
import type { Instrument, MarketSymbol } from '#schemas/events.ts';
import { isObj, parseJson, type Obj } from '../../connector/parse-helpers.ts';
import type { GapFillScope, GapFillSpec, ParserContext, RestParseResult, RestRequest } from '../../connector/types.ts';
import { parseBinanceTradeRows } from './parse.ts';

export const AGG_TRADES_PAGE = 1000;
/** The longest startTime..endTime span /fapi/v1/aggTrades accepts. */
export const AGG_TRADES_MAX_SPAN_MS = 3_600_000 - 1;
/** Trades after the reopen are on the live stream; a little overlap costs only duplicates the sink drops. */
const OVERLAP_MS = 5_000;

const bad = (what: string): RestParseResult => ({ ok: false, reason: what });

/** One /fapi/v1/aggTrades page of `symbol`: its trades, and the next page (full page: by id; else the next hour). */
export function parseAggTradesPage(
  body: string,
  ctx: ParserContext,
  symbol: string,
  windowEndMs: number,
  untilMs: number,
  next: AggTradesUrls,
): RestParseResult {
  const list = parseJson(body);
  if (!Array.isArray(list))
    return bad(`aggTrades: ${isObj(list) ? `code ${String(list['code'])} ${String(list['msg'] ?? '')}` : 'body is not a JSON array'}`);
  const rows: Obj[] = [];
  for (const r of list) {
    if (!isObj(r)) return bad('aggTrades: row is not an object');
    rows.push({ e: 'aggTrade', s: symbol, a: r['a'], f: r['f'], l: r['l'], p: r['p'], q: r['q'], T: r['T'], m: r['m'] });
  }
  const parsed = parseBinanceTradeRows(rows, ctx);
  if (!parsed.ok) return bad(`aggTrades: ${parsed.reason}`);
  const last = rows[rows.length - 1];
  const lastId = last === undefined ? null : Number(last['a']);
  const lastTs = last === undefined ? null : Number(last['T']);
  let nextUrl: string | null = null;
  if (lastId !== null && lastTs !== null && rows.length >= AGG_TRADES_PAGE && lastTs <= untilMs)
    nextUrl = next.fromId(lastId + 1, windowEndMs);
  else if (windowEndMs < untilMs) nextUrl = next.window(windowEndMs + 1);
  return { ok: true, events: parsed.events, nextUrl };
}

/** The URLs of the aggTrades pagination of one symbol. */
export interface AggTradesUrls {
  /** The page starting at trade id `id`, within the current window. */
  fromId(id: number, windowEndMs: number): string;
  /** The time window starting at `fromMs` (at most an hour, not past the end). */
  window(fromMs: number): string;
}

/** The paginated aggTrades fill of one perp: pages are fetched in order, so the window of the page in hand is known. */
function aggTradesRequest(fapi: string, symbol: string, sinceMs: number, untilMs: number): RestRequest {
  const base = `${fapi}/fapi/v1/aggTrades?symbol=${symbol}&limit=${AGG_TRADES_PAGE}`;
  let windowEnd = untilMs;
  const urls: AggTradesUrls = {
    fromId: (id) => `${base}&fromId=${id}`,
    window(fromMs) {
      windowEnd = Math.min(fromMs + AGG_TRADES_MAX_SPAN_MS, untilMs);
      return `${base}&startTime=${fromMs}&endTime=${windowEnd}`;
    },
  };
  return {
    id: `binance:gap-fill:aggTrades:${symbol}`,
    url: urls.window(sinceMs),
    parse: (body, ctx) => parseAggTradesPage(body, ctx, symbol, windowEnd, untilMs, urls),
  };
}

/** GET /api/v3/trades: the pair's latest trades, oldest first, as spot trades. */
export function parseSpotTrades(body: string, ctx: ParserContext, symbol: string): RestParseResult {
  const list = parseJson(body);
  if (!Array.isArray(list))
    return bad(`trades: ${isObj(list) ? `code ${String(list['code'])} ${String(list['msg'] ?? '')}` : 'body is not a JSON array'}`);
  const rows: Obj[] = [];
  for (const r of list) {
    if (!isObj(r)) return bad('trades: row is not an object');
    rows.push({ e: 'trade', s: symbol, t: r['id'], p: r['price'], q: r['qty'], T: r['time'], m: r['isBuyerMaker'] });
  }
  const parsed = parseBinanceTradeRows(rows, { ...ctx, connection: 'spot-rest' });
  return parsed.ok ? { ok: true, events: parsed.events, nextUrl: null } : bad(`trades: ${parsed.reason}`);
}

/** GET /eapi/v1/trades: one option's latest trades as option trades. */
export function parseOptionTrades(body: string, ctx: ParserContext, symbol: string): RestParseResult {
  const list = parseJson(body);
  if (!Array.isArray(list))
    return bad(`option trades: ${isObj(list) ? `code ${String(list['code'])} ${String(list['msg'] ?? '')}` : 'body is not a JSON array'}`);
  const rows: Obj[] = [];
  for (const r of list) {
    if (!isObj(r)) return bad('option trades: row is not an object');
    const qty = typeof r['qty'] === 'string' ? r['qty'].replace(/^-/, '') : r['qty'];
    const side = r['side'] === 1 || r['side'] === '1' ? 'BUY' : r['side'] === -1 || r['side'] === '-1' ? 'SELL' : null;
    rows.push({
      e: 'trade',
      s: typeof r['symbol'] === 'string' ? r['symbol'] : symbol,
      t: r['id'],
      p: r['price'],
      q: qty,
      T: r['time'],
      S: side,
      X: 'MARKET',
    });
  }
  const parsed = parseBinanceTradeRows(rows, ctx);
  return parsed.ok ? { ok: true, events: parsed.events, nextUrl: null } : bad(`option trades: ${parsed.reason}`);
}

/** The listed, active options of `symbols`, nearest expiry first (where most of the flow is). */
const optionsOf = (instruments: readonly Instrument[], symbols: readonly MarketSymbol[]): string[] =>
  instruments
    .filter((i) => i.venue === 'binance' && i.kind === 'option' && i.active && symbols.includes(i.symbol))
    .sort((a, b) => (a.expiry ?? 0) - (b.expiry ?? 0) || a.instrument.localeCompare(b.instrument))
    .map((i) => i.instrument);

/** Default pace of the per-option requests: 60 a minute = 300 of the options API's 400 weight a minute. */
export const OPTION_FILL_PACE_MS = 1_000;

const perpsOf = (instruments: readonly Instrument[], symbols: readonly MarketSymbol[]): string[] =>
  instruments
    .filter((i) => i.venue === 'binance' && i.kind === 'perp' && i.active && symbols.includes(i.symbol) && !i.instrument.includes('_'))
    .map((i) => i.instrument);

export function binanceGapFill(
  urls: { readonly fapi: string; readonly api: string; readonly eapi: string },
  optionPaceMs = OPTION_FILL_PACE_MS,
): GapFillSpec {
  const down = (scope: GapFillScope, prefix: string): boolean => [...scope.connections].some((c) => c.startsWith(prefix));
  return {
    covers: (connection) => connection.startsWith('market') || connection.startsWith('spot') || connection.startsWith('public'),
    requests(symbols, sinceMs, untilMs, scope) {
      const out: RestRequest[] = [];
      if (down(scope, 'market'))
        for (const p of perpsOf(scope.instruments, symbols)) out.push(aggTradesRequest(urls.fapi, p, sinceMs, untilMs + OVERLAP_MS));
      if (down(scope, 'spot')) {
        for (const s of symbols)
          out.push({
            id: `binance:gap-fill:trades:${s}`,
            url: `${urls.api}/api/v3/trades?symbol=${s}&limit=1000`,
            parse: (body: string, ctx: ParserContext) => parseSpotTrades(body, ctx, s),
          });
      }
      // Last: the paced per-option crawl (the perp and spot requests above are not held behind it).
      if (down(scope, 'public')) {
        for (const o of optionsOf(scope.instruments, symbols)) {
          out.push({
            id: `binance:gap-fill:option:${o}`,
            url: `${urls.eapi}/eapi/v1/trades?symbol=${o}&limit=500`,
            paceMs: optionPaceMs,
            parse: (body: string, ctx: ParserContext) => parseOptionTrades(body, ctx, o),
          });
        }
      }
      return out;
    },
  };
}
