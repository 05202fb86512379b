/**
 * OKX v5 public frames -> normalized events. Sizes arrive in contracts and become coins via the listing's
 * ctVal × ctMult (ctx.instruments); coin-margined option prices (BTC) become USD via idxPx or the latest index.
 */
import { lookupInstrument } from '../../connector/context.ts';
import { JsonScan, KeySet, KeySetsBy, NESTED } from '../../connector/json-scan.ts';
import {
  arr,
  deadLetter,
  eventsOrUntracked,
  ignored,
  isObj,
  isUsd,
  mul,
  num,
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
import type { Instrument, MarketEvent } from '#schemas/events.ts';
import { tickerBook, usdPerUnit, type TickerBook } from '../../connector/ticker-book.ts';
import type { ParseResult, ParserContext } from '../../connector/types.ts';
import { okxInstrumentFromName } from './instruments.ts';
import { parseOkxName } from './names.ts';

const VENUE = 'okx';
type Row = { out: MarketEvent[]; error: string | null };

/**
 * A frame -> its events. Trade pushes of flat trade objects are read in one pass without JSON.parse
 * (`scanTradesFrame`); every other frame, and any the scan does not handle, takes `parseOkxFrameJson`. Both give the
 * same result for every frame.
 */
export function parseOkxFrame(frame: string, ctx: ParserContext): ParseResult {
  const scanned = scanTradesFrame(frame);
  if (scanned === null) return parseOkxFrameJson(frame, ctx);
  const r = parseOkxTradeRows(scanned.trades, ctx);
  return r.ok ? eventsOrUntracked(r.events, scanned.channel) : deadLetter(r.reason, scanned.channel);
}

/** The JSON.parse path of `parseOkxFrame`: every frame. */
export function parseOkxFrameJson(frame: string, ctx: ParserContext): ParseResult {
  if (frame === 'pong') return ignored('pong');
  const msg = parseJson(frame);
  if (msg === undefined) return deadLetter('malformed json');
  if (!isObj(msg)) return deadLetter('frame is not a JSON object');
  const event = strValue(msg['event']);
  if (event !== null) {
    if (event === 'subscribe' || event === 'unsubscribe') return ignored('ack', event);
    if (event === 'error') return ignored('venue_error', `${str(msg, 'code') ?? ''} ${str(msg, 'msg') ?? ''}`.trim());
    return ignored('info', event);
  }
  const arg = msg['arg'];
  const channel = isObj(arg) ? strValue(arg['channel']) : null;
  const d = msg['data'];
  const data = Array.isArray(d) ? (d as readonly unknown[]) : null;
  if (channel === null || data === null) return deadLetter('push without arg.channel / data array');
  const handler = HANDLERS[channel];
  if (handler === undefined) return deadLetter(`unknown channel: ${channel}`, channel);
  const row: Row = { out: [], error: null };
  for (const d of data) {
    if (!isObj(d)) return deadLetter('data item is not an object', channel);
    handler(d, ctx, row);
    if (row.error !== null) return deadLetter(row.error, channel);
  }
  return eventsOrUntracked(row.out, channel);
}

const TOP_KEYS = new KeySet(['arg', 'data', 'event']);
const ARG_KEYS = new KeySet(['channel']);
/** The members of a trade row that `trade` reads. */
const TRADE_NAMES = ['instId', 'tradeId', 'ts', 'px', 'sz', 'side', 'idxPx', 'fillVol', 'fwdPx'] as const;
/** By channel: option trades have more members than swap and spot trades, and their channels interleave. */
const TRADE_KEYS = new KeySetsBy(TRADE_NAMES);

/** A trade row's members that `trade` reads, as JSON.parse gives them (undefined when absent). */
type ScannedTrade = Record<(typeof TRADE_NAMES)[number], unknown>;

/** How OKX starts a push; the channel name follows. */
const PUSH_HEAD = '{"arg":{"channel":"';
const scan = new JsonScan();

/**
 * A push of a trades channel (`trades`, `trades-all`, `option-trades`) whose arg holds scalars only and whose data is
 * an array of objects with scalar members, read in one pass: its channel and trades, or null for any other frame and
 * any input the scan does not handle. Members are read in any order, a repeated member's last value wins (as in
 * JSON.parse), and nothing is acted on before the whole frame was read and found valid.
 */
function scanTradesFrame(frame: string): { channel: string; trades: ScannedTrade[] } | null {
  // Most frames are tickers, summaries and books: a frame in the usual layout whose channel starts with neither 't' nor
  // 'o' is left to JSON.parse without a scan (whatever the frame, it is parsed right).
  if (frame.startsWith(PUSH_HEAD)) {
    const c = frame.charCodeAt(PUSH_HEAD.length);
    if (c !== 116 && c !== 111) return null;
  }
  if (!scan.begin(frame)) return null;
  let list: ScannedTrade[] | null = null;
  for (let k = scan.readObject(TOP_KEYS); k !== -1; k = scan.readRest(TOP_KEYS)) {
    if (k === 0) {
      if (!scan.values(ARG_KEYS)) return null;
    } else if (k === 1) {
      list = scan.objects(TRADE_KEYS.get(ARG_KEYS.values[0]), scannedTrade);
      if (list === null) return null;
    } else return null; // event holding an object / array
  }
  const [arg, data, event] = TOP_KEYS.values;
  const [channel] = ARG_KEYS.values;
  if (!scan.end() || arg !== NESTED || data !== NESTED || event !== undefined) return null;
  return list !== null && isTradesChannel(channel) ? { channel, trades: list } : null;
}

function isTradesChannel(channel: unknown): channel is string {
  return channel === 'trades' || channel === 'option-trades' || channel === 'trades-all';
}

function scannedTrade(v: readonly unknown[]): ScannedTrade {
  return { instId: v[0], tradeId: v[1], ts: v[2], px: v[3], sz: v[4], side: v[5], idxPx: v[6], fillVol: v[7], fwdPx: v[8] };
}

/** Trade rows in the `option-trades` / `trades` shape (REST recent trades, gap fill): the events or the first error. */
export function parseOkxTradeRows(
  data: readonly unknown[],
  ctx: ParserContext,
): { ok: true; events: readonly MarketEvent[] } | { ok: false; reason: string } {
  const row: Row = { out: [], error: null };
  for (const d of data) {
    if (!isObj(d)) return { ok: false, reason: 'trade is not an object' };
    trade(d, ctx, row);
    if (row.error !== null) return { ok: false, reason: row.error };
  }
  return { ok: true, events: row.out };
}

const HANDLERS: Readonly<Record<string, (d: Obj, ctx: ParserContext, row: Row) => void>> = {
  'option-trades': trade,
  trades: trade,
  'trades-all': trade,
  'opt-summary': optSummary,
  tickers,
  'open-interest': openInterest,
  'mark-price': markPrice,
  'funding-rate': fundingRate,
  'index-tickers': indexTicker,
  'liquidation-orders': liquidationOrders,
};

/** The instrument for `instId`, or null when untracked; sets row.error when tracked but not listed. */
function instrumentOf(instId: string, ctx: ParserContext, row: Row): Instrument | null {
  const listed = ctx.instruments.get(instId);
  if (listed !== undefined) return listed;
  const name = parseOkxName(instId);
  if (name === null) {
    row.error = `unparseable instId: ${instId}`;
    return null;
  }
  if (symbolForBase(name.base) === null) return null;
  const inst = lookupInstrument(ctx, instId, okxInstrumentFromName);
  if (inst === null && (name.kind === 'option' || name.kind === 'perp')) row.error = `instrument not in listing: ${instId}`;
  return inst;
}

/** USD per coin of an option price quoted in `inst.quoteCurrency`. */
function toUsd(price: number, inst: Instrument, idx: number | null, ctx: ParserContext): number | null {
  if (isUsd(inst.quoteCurrency)) return price;
  const index = idx ?? ctx.indexPrices.get(inst.symbol) ?? null;
  return index === null ? null : mul(price, index);
}

function trade(d: Obj | ScannedTrade, ctx: ParserContext, row: Row): void {
  const instId = strValue(d['instId']);
  const tradeId = idValue(d['tradeId']);
  const ts = numValue(d['ts']);
  const px = numValue(d['px']);
  const sz = numValue(d['sz']);
  const side = d['side'];
  if (instId === null || tradeId === null || ts === null || px === null || sz === null || (side !== 'buy' && side !== 'sell')) {
    row.error = 'trade missing instId/tradeId/ts/px/sz/side';
    return;
  }
  const inst = instrumentOf(instId, ctx, row);
  if (inst === null) return;
  const size = mul(sz, inst.contractSize);
  const symbol = inst.symbol;
  const receivedAt = ctx.receivedAt;
  const id = `${VENUE}:${instId}:${tradeId}`;
  if (inst.kind === 'option') {
    if (inst.strike === null || inst.expiry === null || inst.optionType === null) {
      row.error = `instrument ${instId} lacks strike/expiry/type`;
      return;
    }
    const indexPrice = numValue(d['idxPx']);
    if (indexPrice !== null) ctx.indexPrices.set(inst.symbol, indexPrice);
    const priceUsd = toUsd(px, inst, indexPrice, ctx);
    if (priceUsd === null) {
      row.error = `no index price to convert ${instId} price to USD`;
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
        instrument: instId,
        tradeId,
        side,
        strike: inst.strike,
        expiry: inst.expiry,
        optionType: inst.optionType,
        price: px,
        priceCurrency: inst.quoteCurrency,
        priceUsd,
        size,
        premiumUsd: mul(priceUsd, size),
        iv: numValue(d['fillVol']),
        indexPrice,
        underlyingPrice: numValue(d['fwdPx']),
        block: false,
      },
    });
  } else if (inst.kind === 'perp' || inst.kind === 'spot') {
    const spot = inst.kind === 'spot';
    row.out.push({
      type: spot ? 'spot_trade' : 'perp_trade',
      event: {
        venue: VENUE,
        symbol,
        ts,
        receivedAt,
        id,
        instrument: instId,
        tradeId,
        side,
        market: spot ? 'spot' : 'perp',
        price: px,
        size,
      },
    });
  }
}

type OptionTickerEvent = Extract<MarketEvent, { type: 'option_ticker' }>['event'];
type PerpStatsEvent = Extract<MarketEvent, { type: 'perp_stats' }>['event'];
/** The values one OKX channel publishes for an option ticker row; every other field of the row is null. */
type TickerFields = Partial<
  Pick<
    OptionTickerEvent,
    'markPrice' | 'markIv' | 'bidIv' | 'askIv' | 'delta' | 'gamma' | 'vega' | 'theta' | 'openInterest' | 'underlyingPrice' | 'indexPrice'
  >
> &
  Partial<TickerBook>;
/** The values one OKX channel publishes for a perp stats row; every other field of the row is null. */
type StatsFields = Partial<
  Pick<PerpStatsEvent, 'openInterest' | 'openInterestUsd' | 'fundingRate' | 'nextFundingTime' | 'markPrice' | 'indexPrice'>
>;

// One explicit literal per event type (no object spread on the per-frame path): same fields, same order.
function optionTicker(inst: Instrument, ts: number, ctx: ParserContext, row: Row, f: TickerFields, family: string): void {
  if (inst.strike === null || inst.expiry === null || inst.optionType === null) {
    row.error = `instrument ${inst.instrument} lacks strike/expiry/type`;
    return;
  }
  row.out.push({
    type: 'option_ticker',
    event: {
      venue: VENUE,
      symbol: inst.symbol,
      ts,
      receivedAt: ctx.receivedAt,
      id: rowId(VENUE, family, inst.instrument, ts),
      instrument: inst.instrument,
      strike: inst.strike,
      expiry: inst.expiry,
      optionType: inst.optionType,
      markPrice: f.markPrice ?? null,
      markIv: f.markIv ?? null,
      bidIv: f.bidIv ?? null,
      askIv: f.askIv ?? null,
      delta: f.delta ?? null,
      gamma: f.gamma ?? null,
      vega: f.vega ?? null,
      theta: f.theta ?? null,
      openInterest: f.openInterest ?? null,
      underlyingPrice: f.underlyingPrice ?? null,
      indexPrice: f.indexPrice ?? null,
      priceCurrency: f.priceCurrency ?? null,
      bidPrice: f.bidPrice ?? null,
      askPrice: f.askPrice ?? null,
      bidPriceUsd: f.bidPriceUsd ?? null,
      askPriceUsd: f.askPriceUsd ?? null,
      bidSize: f.bidSize ?? null,
      askSize: f.askSize ?? null,
      lastPrice: f.lastPrice ?? null,
      lastPriceUsd: f.lastPriceUsd ?? null,
      volume24h: f.volume24h ?? null,
    },
  });
}

function perpStats(inst: Instrument, ts: number, ctx: ParserContext, row: Row, f: StatsFields, family: string): void {
  row.out.push({
    type: 'perp_stats',
    event: {
      venue: VENUE,
      symbol: inst.symbol,
      ts,
      receivedAt: ctx.receivedAt,
      id: rowId(VENUE, family, inst.instrument, ts),
      instrument: inst.instrument,
      openInterest: f.openInterest ?? null,
      openInterestUsd: f.openInterestUsd ?? null,
      fundingRate: f.fundingRate ?? null,
      nextFundingTime: f.nextFundingTime ?? null,
      markPrice: f.markPrice ?? null,
      indexPrice: f.indexPrice ?? null,
    },
  });
}

function withInstrument(d: Obj, ctx: ParserContext, row: Row): { inst: Instrument; ts: number } | null {
  const instId = str(d, 'instId');
  const ts = num(d, 'ts') ?? ctx.receivedAt;
  if (instId === null) {
    row.error = 'item missing instId';
    return null;
  }
  const inst = instrumentOf(instId, ctx, row);
  return inst === null ? null : { inst, ts };
}

/** opt-summary: Black-Scholes greeks (deltaBS, gammaBS, vegaBS, thetaBS), vols as fractions, fwdPx. */
function optSummary(d: Obj, ctx: ParserContext, row: Row): void {
  const r = withInstrument(d, ctx, row);
  if (r === null) return;
  optionTicker(
    r.inst,
    r.ts,
    ctx,
    row,
    {
      markIv: positive(d, 'markVol'),
      bidIv: positive(d, 'bidVol'),
      askIv: positive(d, 'askVol'),
      delta: num(d, 'deltaBS'),
      gamma: num(d, 'gammaBS'),
      vega: num(d, 'vegaBS'),
      theta: num(d, 'thetaBS'),
      underlyingPrice: num(d, 'fwdPx'),
    },
    'opt_summary',
  );
}

/**
 * tickers (options only; other instruments' tickers are not read): best bid/ask price (coin quote) and size
 * (contracts × contract size), last price, 24 h volume in coins (volCcy24h). An empty side is "".
 */
function tickers(d: Obj, ctx: ParserContext, row: Row): void {
  const r = withInstrument(d, ctx, row);
  if (r === null || r.inst.kind !== 'option') return;
  const size = (k: string): number | null => {
    const v = num(d, k);
    return v === null ? null : mul(v, r.inst.contractSize);
  };
  const q = r.inst.quoteCurrency;
  const book = tickerBook(
    {
      priceCurrency: q,
      bid: num(d, 'bidPx'),
      ask: num(d, 'askPx'),
      bidSize: size('bidSz'),
      askSize: size('askSz'),
      last: num(d, 'last'),
      volume24h: num(d, 'volCcy24h'),
    },
    usdPerUnit(q, ctx.indexPrices.get(r.inst.symbol) ?? null),
  );
  optionTicker(r.inst, r.ts, ctx, row, book, 'tickers');
}

/** open-interest: oiCcy is in coins (oi is contracts); oiUsd when published. */
export function openInterest(d: Obj, ctx: ParserContext, row: Row): void {
  const r = withInstrument(d, ctx, row);
  if (r === null) return;
  const oiCcy = num(d, 'oiCcy');
  const oi = num(d, 'oi');
  const coins = oiCcy ?? (oi === null ? null : mul(oi, r.inst.contractSize));
  if (r.inst.kind === 'option') optionTicker(r.inst, r.ts, ctx, row, { openInterest: coins }, 'open_interest');
  else if (r.inst.kind === 'perp')
    perpStats(r.inst, r.ts, ctx, row, { openInterest: coins, openInterestUsd: num(d, 'oiUsd') }, 'open_interest');
}

function markPrice(d: Obj, ctx: ParserContext, row: Row): void {
  const r = withInstrument(d, ctx, row);
  const px = num(d, 'markPx');
  if (r === null || px === null) return;
  if (r.inst.kind === 'option') optionTicker(r.inst, r.ts, ctx, row, { markPrice: toUsd(px, r.inst, null, ctx) }, 'mark_price');
  else if (r.inst.kind === 'perp') perpStats(r.inst, r.ts, ctx, row, { markPrice: px }, 'mark_price');
}

/** funding-rate: `fundingTime` is when the current `fundingRate` is settled (the next funding). */
function fundingRate(d: Obj, ctx: ParserContext, row: Row): void {
  const r = withInstrument(d, ctx, row);
  if (r === null || r.inst.kind !== 'perp') return;
  perpStats(r.inst, r.ts, ctx, row, { fundingRate: num(d, 'fundingRate'), nextFundingTime: num(d, 'fundingTime') }, 'funding_rate');
}

function indexTicker(d: Obj, ctx: ParserContext, row: Row): void {
  const instId = str(d, 'instId');
  const ts = num(d, 'ts');
  const value = num(d, 'idxPx');
  if (instId === null || ts === null || value === null) {
    row.error = 'index-tickers item missing instId/ts/idxPx';
    return;
  }
  const [base, quote] = instId.split('-');
  const symbol = symbolForBase(base ?? '');
  if (symbol === null) return;
  if (quote === 'USD' || !ctx.indexPrices.has(symbol)) ctx.indexPrices.set(symbol, value);
  row.out.push({
    type: 'index',
    event: {
      venue: VENUE,
      symbol,
      ts,
      receivedAt: ctx.receivedAt,
      id: rowId(VENUE, 'index', instId, ts),
      kind: 'index',
      name: instId,
      value,
    },
  });
}

/** liquidation-orders: posSide long/short is the liquidated position; in net mode a buy closes a short. */
function liquidationOrders(d: Obj, ctx: ParserContext, row: Row): void {
  const instId = str(d, 'instId');
  const details = arr(d, 'details');
  if (instId === null || details === null) {
    row.error = 'liquidation-orders item missing instId/details';
    return;
  }
  const name = parseOkxName(instId);
  if (name === null || name.kind !== 'perp') return;
  const inst = instrumentOf(instId, ctx, row);
  if (inst === null) return;
  for (const x of details) {
    if (!isObj(x)) continue;
    const px = num(x, 'bkPx');
    const sz = num(x, 'sz');
    const ts = num(x, 'ts');
    const sd = str(x, 'side');
    const pos = str(x, 'posSide');
    if (px === null || sz === null || ts === null || (sd !== 'buy' && sd !== 'sell')) {
      row.error = 'liquidation detail missing bkPx/sz/ts/side';
      return;
    }
    const side = pos === 'long' || pos === 'short' ? pos : sd === 'buy' ? 'short' : 'long';
    const size = mul(sz, inst.contractSize);
    row.out.push({
      type: 'liquidation',
      event: {
        venue: VENUE,
        symbol: inst.symbol,
        ts,
        receivedAt: ctx.receivedAt,
        id: `${VENUE}:liq:${instId}:${ts}:${side}:${px}:${sz}`,
        instrument: instId,
        side,
        price: px,
        size,
      },
    });
  }
}

export type { Row as OkxRow };
