/**
 * Binance frames (combined `{stream,data}` or raw) -> normalized events: optionTrade, optionMarkPrice,
 * optionOpenInterest, index, aggTrade / trade (perp, or spot on the 'spot' connection), markPriceUpdate, forceOrder.
 */
import { lookupInstrument } from '../../connector/context.ts';
import { JsonScan, KeySet, NESTED } from '../../connector/json-scan.ts';
import {
  deadLetter,
  eventsOrUntracked,
  idOf,
  ignored,
  isObj,
  mul,
  num,
  obj,
  parseJson,
  positive,
  rowId,
  str,
  symbolForBase,
  idValue,
  numValue,
  strValue,
} from '../../connector/parse-helpers.ts';
import type { Obj } from '../../connector/parse-helpers.ts';
import type { Instrument, MarketEvent, TakerSide } from '#schemas/events.ts';
import { tickerBook, usdPerUnit } from '../../connector/ticker-book.ts';
import type { ParseResult, ParserContext } from '../../connector/types.ts';
import { binanceInstrumentFromName } from './instruments.ts';

const VENUE = 'binance';
/** `dropped`: why the last item was left out by rule (a frame of only dropped items is ignored as `dropped`). */
type Row = { out: MarketEvent[]; error: string | null; dropped?: string };

/**
 * A frame -> its events. Combined-stream frames of one trade (`trade` / `aggTrade` data objects of scalars) are read
 * in one pass without JSON.parse (`scanTradeFrame`); every other frame, and any the scan does not handle, takes
 * `parseBinanceFrameJson`. Both give the same result for every frame.
 */
export function parseBinanceFrame(frame: string, ctx: ParserContext): ParseResult {
  const scanned = scanTradeFrame(frame);
  if (scanned === null) return parseBinanceFrameJson(frame, ctx);
  const row: Row = { out: [], error: null };
  trade(scanned.trade, ctx, row);
  return row.error === null ? result(row, scanned.stream) : deadLetter(row.error, scanned.stream);
}

/** The JSON.parse path of `parseBinanceFrame`: every frame. */
export function parseBinanceFrameJson(frame: string, ctx: ParserContext): ParseResult {
  const msg = parseJson(frame);
  if (msg === undefined) return deadLetter('malformed json');
  if (Array.isArray(msg)) return items(msg, '', ctx);
  if (!isObj(msg)) return deadLetter('frame is not a JSON object');
  const stream = strValue(msg['stream']);
  if (stream === null || msg['error'] !== undefined || msg['result'] !== undefined) {
    if ('result' in msg && 'id' in msg) return ignored('ack', idOf(msg, 'id') ?? undefined);
    const error = obj(msg, 'error');
    if (error !== null) return ignored('venue_error', `${num(error, 'code') ?? ''} ${str(error, 'msg') ?? ''}`.trim());
  }
  const data = stream === null ? msg : msg['data'];
  const channel = stream ?? '';
  if (Array.isArray(data)) return items(data, channel, ctx);
  if (!isObj(data)) return deadLetter('data is not an object', channel);
  const row: Row = { out: [], error: null };
  return item(data, channel, ctx, row) ?? result(row, channel);
}

const TOP_KEYS = new KeySet(['stream', 'data', 'error', 'result']);
/** The members of a trade / aggTrade object that `trade` reads. */
const TRADE_NAMES = ['e', 's', 'T', 'p', 'q', 'm', 'S', 't', 'a', 'f', 'l', 'X'] as const;
const TRADE_KEYS = new KeySet(TRADE_NAMES);

/** A trade object's members that `trade` reads, as JSON.parse gives them (undefined when absent). */
type ScannedTrade = Record<(typeof TRADE_NAMES)[number], unknown>;

/** How a combined-stream frame starts; the stream name follows. */
const STREAM_HEAD = '{"stream":"';
const scan = new JsonScan();

/**
 * A combined-stream frame (`stream` a string, no `error` or `result`) whose data is one `trade` or `aggTrade` object
 * of scalars, read in one pass: its stream and trade, or null for any other frame and any input the scan does not
 * handle. Members are read in any order, a repeated member's last value wins (as in JSON.parse), and nothing is acted
 * on before the whole frame was read and found valid.
 */
function scanTradeFrame(frame: string): { stream: string; trade: ScannedTrade } | null {
  // Most frames are mark prices, tickers and open interest: a frame in the usual layout whose stream name has no
  // 't', 'a' or 'o' after its '@' ('@trade', '@aggTrade', '@optionTrade') is left to JSON.parse without a scan.
  if (frame.startsWith(STREAM_HEAD)) {
    const at = frame.indexOf('@', STREAM_HEAD.length);
    const c = at === -1 ? 0 : frame.charCodeAt(at + 1);
    if (c !== 116 && c !== 97 && c !== 111) return null;
  }
  if (!scan.begin(frame)) return null;
  let trade: ScannedTrade | null = null;
  for (let k = scan.readObject(TOP_KEYS); k !== -1; k = scan.readRest(TOP_KEYS)) {
    if (k !== 1 || !scan.values(TRADE_KEYS)) return null; // stream, error or result holding an object / array
    trade = scannedTrade(TRADE_KEYS.values);
  }
  const [stream, data, error, result] = TOP_KEYS.values;
  if (!scan.end() || typeof stream !== 'string' || data !== NESTED || error !== undefined || result !== undefined) return null;
  return trade !== null && (trade.e === 'trade' || trade.e === 'aggTrade') ? { stream, trade } : null;
}

function scannedTrade(v: readonly unknown[]): ScannedTrade {
  return { e: v[0], s: v[1], T: v[2], p: v[3], q: v[4], m: v[5], S: v[6], t: v[7], a: v[8], f: v[9], l: v[10], X: v[11] };
}

/**
 * Trade rows in the stream's shape (`aggTrade` / `trade` objects: e, s, T, p, q, m and a or t), as the gap fill
 * rebuilds them from the REST trade lists; spot when `ctx.connection` starts with `spot`.
 */
export function parseBinanceTradeRows(
  rows: readonly Obj[],
  ctx: ParserContext,
): { ok: true; events: readonly MarketEvent[] } | { ok: false; reason: string } {
  const row: Row = { out: [], error: null };
  for (const d of rows) {
    trade(d, ctx, row);
    if (row.error !== null) return { ok: false, reason: row.error };
  }
  return { ok: true, events: row.out };
}

function items(list: readonly unknown[], channel: string, ctx: ParserContext): ParseResult {
  const row: Row = { out: [], error: null };
  for (const d of list) {
    const failed = item(d, channel, ctx, row);
    if (failed !== null) return failed;
  }
  return result(row, channel);
}

/** Adds the events of one data item to `row`: null, or the dead letter when the item is malformed. */
function item(d: unknown, channel: string, ctx: ParserContext, row: Row): ParseResult | null {
  if (!isObj(d)) return deadLetter('data item is not an object', channel);
  const e = strValue(d['e']);
  const handler = e === null ? undefined : HANDLERS[e];
  if (handler === undefined) return deadLetter(`unknown event type: ${String(e)}`, channel);
  handler(d, ctx, row);
  return row.error === null ? null : deadLetter(row.error, channel);
}

function result(row: Row, channel: string): ParseResult {
  if (row.out.length === 0 && row.dropped !== undefined) return ignored('dropped', row.dropped);
  return eventsOrUntracked(row.out, channel);
}

const HANDLERS: Readonly<Record<string, (d: Obj, ctx: ParserContext, row: Row) => void>> = {
  trade,
  aggTrade: trade,
  markPriceUpdate,
  forceOrder,
  markPrice: optionMark,
  openInterest: optionOpenInterest,
  index,
};

function instrumentOf(name: string, ctx: ParserContext): Instrument | null {
  return lookupInstrument(ctx, name, binanceInstrumentFromName);
}

/** `m` = buyer is maker, so the taker sold; options also carry `S`, used when `m` is absent. */
function takerSide(m: unknown, s: unknown): TakerSide | null {
  if (typeof m === 'boolean') return m ? 'sell' : 'buy';
  return s === 'BUY' ? 'buy' : s === 'SELL' ? 'sell' : null;
}

function trade(d: Obj | ScannedTrade, ctx: ParserContext, row: Row): void {
  const name = strValue(d['s']);
  const ts = numValue(d['T']);
  const price = numValue(d['p']);
  const qty = numValue(d['q']);
  const side = takerSide(d['m'], d['S']);
  const tradeId = d['e'] === 'aggTrade' ? (idValue(d['a']) ?? `${idValue(d['f']) ?? ''}-${idValue(d['l']) ?? ''}`) : idValue(d['t']);
  if (name === null || ts === null || price === null || qty === null || side === null || tradeId === null) {
    row.error = 'trade missing s/T/p/q/side/id';
    return;
  }
  const inst = instrumentOf(name, ctx);
  if (inst === null) return;
  const size = mul(qty, inst.contractSize);
  const symbol = inst.symbol;
  const receivedAt = ctx.receivedAt;
  const id = `${VENUE}:${name}:${tradeId}`;
  if (inst.kind === 'option') {
    if (inst.strike === null || inst.expiry === null || inst.optionType === null) {
      row.error = `instrument ${name} lacks strike/expiry/type`;
      return;
    }
    row.out.push({
      type: 'option_trade',
      event: {
        venue: VENUE,
        symbol,
        ts,
        receivedAt,
        id,
        instrument: name,
        tradeId,
        side,
        strike: inst.strike,
        expiry: inst.expiry,
        optionType: inst.optionType,
        price,
        priceCurrency: inst.quoteCurrency,
        priceUsd: price,
        size,
        premiumUsd: mul(price, size),
        iv: null,
        indexPrice: null,
        underlyingPrice: null,
        block: d['X'] === 'BLOCK',
      },
    });
    return;
  }
  const spot = ctx.connection.startsWith('spot');
  // USD-M futures `@trade` prints insurance-fund and ADL fills too (`X`); only MARKET prints are taker trades.
  const type = strValue(d['X']);
  if (!spot && type !== null && type !== 'MARKET') {
    row.dropped = `non-market futures trade (X=${type})`;
    return;
  }
  row.out.push({
    type: spot ? 'spot_trade' : 'perp_trade',
    event: { venue: VENUE, symbol, ts, receivedAt, id, instrument: name, tradeId, side, market: spot ? 'spot' : 'perp', price, size },
  });
}

function perp(name: string | null, ctx: ParserContext): Instrument | null {
  if (name === null || name.includes('_')) return null; // dated futures (BTCUSDT_250627) are not tracked
  const inst = instrumentOf(name, ctx);
  return inst !== null && inst.kind === 'perp' ? inst : null;
}

function markPriceUpdate(d: Obj, ctx: ParserContext, row: Row): void {
  const ts = num(d, 'E');
  if (ts === null) {
    row.error = 'markPriceUpdate missing E';
    return;
  }
  const inst = perp(str(d, 's'), ctx);
  if (inst === null) return;
  const next = num(d, 'T');
  row.out.push({
    type: 'perp_stats',
    event: {
      venue: VENUE,
      symbol: inst.symbol,
      ts,
      receivedAt: ctx.receivedAt,
      id: rowId(VENUE, 'mark_price', inst.instrument, ts),
      instrument: inst.instrument,
      openInterest: null,
      openInterestUsd: null,
      fundingRate: num(d, 'r'),
      nextFundingTime: next !== null && next > 0 ? next : null,
      markPrice: num(d, 'p'),
      indexPrice: num(d, 'i'),
    },
  });
}

/** forceOrder: the liquidation engine's order; S=SELL closes a long. Size = filled qty (z), else q. */
function forceOrder(d: Obj, ctx: ParserContext, row: Row): void {
  const o = obj(d, 'o');
  const ts = o === null ? null : num(o, 'T');
  const s = o === null ? null : str(o, 'S');
  if (o === null || ts === null || (s !== 'BUY' && s !== 'SELL')) {
    row.error = 'forceOrder missing o.T/o.S';
    return;
  }
  const inst = perp(str(o, 's'), ctx);
  if (inst === null) return;
  const price = positive(o, 'ap') ?? num(o, 'p');
  const qty = positive(o, 'z') ?? num(o, 'q');
  if (price === null || qty === null) {
    row.error = 'forceOrder missing price/quantity';
    return;
  }
  const side = s === 'SELL' ? 'long' : 'short';
  row.out.push({
    type: 'liquidation',
    event: {
      venue: VENUE,
      symbol: inst.symbol,
      ts,
      receivedAt: ctx.receivedAt,
      id: `${VENUE}:liq:${inst.instrument}:${ts}:${side}:${price}:${qty}`,
      instrument: inst.instrument,
      side,
      price,
      size: mul(qty, inst.contractSize),
    },
  });
}

function optionInstrument(
  d: Obj,
  ctx: ParserContext,
  row: Row,
): { inst: Instrument; ts: number; strike: number; expiry: number; optionType: 'call' | 'put' } | null {
  const name = str(d, 's');
  const ts = num(d, 'E');
  if (name === null || ts === null) {
    row.error = 'option item missing s/E';
    return null;
  }
  const inst = instrumentOf(name, ctx);
  if (inst === null || inst.kind !== 'option') return null;
  if (inst.strike === null || inst.expiry === null || inst.optionType === null) {
    row.error = `instrument ${name} lacks strike/expiry/type`;
    return null;
  }
  return { inst, ts, strike: inst.strike, expiry: inst.expiry, optionType: inst.optionType };
}

/**
 * optionMarkPrice item: mp mark (USDT), vo mark IV, b/a bid/ask IV (-1 = none), d/g/v/t greeks, i index, bo/ao best
 * bid/ask (USDT, 0 = none), bq/aq their sizes (contracts). No last price or 24 h volume on this stream.
 */
function optionMark(d: Obj, ctx: ParserContext, row: Row): void {
  const r = optionInstrument(d, ctx, row);
  if (r === null) return;
  const indexPrice = num(d, 'i');
  if (indexPrice !== null) ctx.indexPrices.set(r.inst.symbol, indexPrice);
  const size = (k: string): number | null => {
    const v = num(d, k);
    return v === null ? null : mul(v, r.inst.contractSize);
  };
  const q = r.inst.quoteCurrency;
  const book = tickerBook(
    { priceCurrency: q, bid: num(d, 'bo'), ask: num(d, 'ao'), bidSize: size('bq'), askSize: size('aq') },
    usdPerUnit(q, indexPrice),
  );
  row.out.push({
    type: 'option_ticker',
    event: {
      venue: VENUE,
      symbol: r.inst.symbol,
      ts: r.ts,
      receivedAt: ctx.receivedAt,
      id: rowId(VENUE, 'mark_price', r.inst.instrument, r.ts),
      instrument: r.inst.instrument,
      strike: r.strike,
      expiry: r.expiry,
      optionType: r.optionType,
      markPrice: num(d, 'mp'),
      markIv: positive(d, 'vo'),
      bidIv: positive(d, 'b'),
      askIv: positive(d, 'a'),
      delta: num(d, 'd'),
      gamma: num(d, 'g'),
      vega: num(d, 'v'),
      theta: num(d, 't'),
      openInterest: null,
      underlyingPrice: null,
      indexPrice,
      ...book,
    },
  });
}

/** optionOpenInterest item: o = contracts (× unit = coins). */
function optionOpenInterest(d: Obj, ctx: ParserContext, row: Row): void {
  const r = optionInstrument(d, ctx, row);
  if (r === null) return;
  const oi = num(d, 'o');
  row.out.push({
    type: 'option_ticker',
    event: {
      venue: VENUE,
      symbol: r.inst.symbol,
      ts: r.ts,
      receivedAt: ctx.receivedAt,
      id: rowId(VENUE, 'open_interest', r.inst.instrument, r.ts),
      instrument: r.inst.instrument,
      strike: r.strike,
      expiry: r.expiry,
      optionType: r.optionType,
      markPrice: null,
      markIv: null,
      bidIv: null,
      askIv: null,
      delta: null,
      gamma: null,
      vega: null,
      theta: null,
      openInterest: oi === null ? null : mul(oi, r.inst.contractSize),
      underlyingPrice: null,
      indexPrice: null,
    },
  });
}

function index(d: Obj, ctx: ParserContext, row: Row): void {
  const name = str(d, 's');
  const ts = num(d, 'E');
  const value = num(d, 'p');
  if (name === null || ts === null || value === null) {
    row.error = 'index item missing s/E/p';
    return;
  }
  const symbol = symbolForBase(name.replace(/USDT$|USDC$/, ''));
  if (symbol === null) return;
  ctx.indexPrices.set(symbol, value);
  row.out.push({
    type: 'index',
    event: { venue: VENUE, symbol, ts, receivedAt: ctx.receivedAt, id: rowId(VENUE, 'index', name, ts), kind: 'index', name, value },
  });
}
