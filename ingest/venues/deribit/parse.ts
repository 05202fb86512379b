/**
 * Deribit JSON-RPC frames -> normalized events. Channels: trades.* (option / perp trades, perp liquidations),
 * ticker.* (option tickers, perp stats), deribit_price_index.* (index), deribit_volatility_index.* (DVOL).
 */
import { lookupInstrument } from '../../connector/context.ts';
import { JsonScan, KeySet, KeySetsBy, NESTED } from '../../connector/json-scan.ts';
import {
  deadLetter,
  events,
  eventsOrUntracked,
  idOf,
  ignored,
  isObj,
  isUsd,
  ivFromPercent,
  mul,
  num,
  obj,
  parseJson,
  positive,
  rowId,
  str,
  symbolForBase,
  clean,
  idValue,
  numValue,
  strValue,
} from '../../connector/parse-helpers.ts';
import type { Obj } from '../../connector/parse-helpers.ts';
import type { Instrument, MarketEvent, TakerSide } from '#schemas/events.ts';
import type { ParseResult, ParserContext } from '../../connector/types.ts';
import { deribitInstrumentFromName } from './instruments.ts';
import { parseDeribitName } from './names.ts';
import { tickerBook, usdPerUnit } from '../../connector/ticker-book.ts';

const VENUE = 'deribit';
/** Sent back on `test_request`; its response arrives as an ordinary JSON-RPC result (ack). */
export const DERIBIT_TEST_REPLY = '{"jsonrpc":"2.0","id":9929,"method":"public/test","params":{}}';

/**
 * A frame -> its events. `trades.*` notifications of flat trade objects are read in one pass without JSON.parse
 * (`scanTradesFrame`); every other frame, and any the scan does not handle, takes `parseDeribitFrameJson`. Both give
 * the same result for every frame.
 */
export function parseDeribitFrame(frame: string, ctx: ParserContext): ParseResult {
  const scanned = scanTradesFrame(frame);
  return scanned === null ? parseDeribitFrameJson(frame, ctx) : parseTrades(scanned.trades, scanned.channel, ctx);
}

/** The JSON.parse path of `parseDeribitFrame`: every frame. */
export function parseDeribitFrameJson(frame: string, ctx: ParserContext): ParseResult {
  const msg = parseJson(frame);
  if (msg === undefined) return deadLetter('malformed json');
  if (!isObj(msg)) return deadLetter('frame is not a JSON object');
  const method = strValue(msg['method']);
  if (method === 'subscription') {
    const p = msg['params'];
    const params = isObj(p) ? p : null;
    const channel = params === null ? null : strValue(params['channel']);
    if (params === null || channel === null) return deadLetter('subscription without params.channel');
    const data = params['data'];
    if (channel.startsWith('trades.') || channel === 'trades') {
      return Array.isArray(data) ? parseTrades(data, channel, ctx) : deadLetter('trades data is not an array', channel);
    }
    const dot = channel.indexOf('.');
    const family = dot === -1 ? channel : channel.slice(0, dot);
    switch (family) {
      case 'trades':
        return Array.isArray(data) ? parseTrades(data, channel, ctx) : deadLetter('trades data is not an array', channel);
      case 'ticker':
        return isObj(data) ? parseTicker(data, channel, ctx) : deadLetter('ticker data is not an object', channel);
      case 'deribit_price_index':
      case 'deribit_volatility_index':
        return isObj(data)
          ? parseIndex(data, channel, family === 'deribit_volatility_index', ctx)
          : deadLetter('index data is not an object', channel);
      default:
        return deadLetter(`unknown channel: ${channel}`, channel);
    }
  }
  if (method === 'heartbeat') {
    const params = obj(msg, 'params');
    const type = params === null ? null : str(params, 'type');
    return type === 'test_request' ? ignored('heartbeat', 'test_request', DERIBIT_TEST_REPLY) : ignored('heartbeat', type ?? undefined);
  }
  if (method === null && msg['jsonrpc'] === '2.0' && ('result' in msg || 'error' in msg)) {
    const error = obj(msg, 'error');
    if (error !== null) return ignored('venue_error', `${num(error, 'code') ?? ''} ${str(error, 'message') ?? ''}`.trim());
    return ignored('ack', idOf(msg, 'id') ?? undefined);
  }
  return deadLetter(`unknown message${method === null ? '' : `: ${method}`}`);
}

const TOP_KEYS = new KeySet(['method', 'params']);
const PARAMS_KEYS = new KeySet(['channel', 'data']);
/** By channel: option and perpetual trades have different layouts, and their channels interleave. */
const TRADE_KEYS = new KeySetsBy([
  'instrument_name',
  'trade_id',
  'timestamp',
  'price',
  'amount',
  'direction',
  'index_price',
  'iv',
  'underlying_price',
  'block_trade_id',
  'liquidation',
]);

/** The members of a trade object that `parseTrade` reads, as JSON.parse gives them (undefined when absent). */
type ScannedTrade = {
  instrument_name: unknown;
  trade_id: unknown;
  timestamp: unknown;
  price: unknown;
  amount: unknown;
  direction: unknown;
  index_price: unknown;
  iv: unknown;
  underlying_price: unknown;
  block_trade_id: unknown;
  liquidation: unknown;
};

/** How Deribit starts a subscription notification; the channel name follows (only its length is used). */
const NOTIFICATION_HEAD = '{"jsonrpc":"2.0","method":"subscription","params":{"channel":"';
const scan = new JsonScan();

/**
 * A `subscription` frame of a trades channel whose data is an array of objects with scalar members, read in one
 * pass: its channel and trades, or null for any other frame and any input the scan does not handle. Members are read
 * in any order, a repeated member's last value wins (as in JSON.parse), and nothing is acted on before the whole
 * frame was read and found valid.
 */
function scanTradesFrame(frame: string): { channel: string; trades: ScannedTrade[] } | null {
  // Most frames are ticker notifications. A frame with `:"` where the usual head ends and no 'tr' after it is no trades
  // notification in the usual layout: left to JSON.parse without a scan (whatever the frame, it is parsed right).
  const at = NOTIFICATION_HEAD.length;
  const head = frame.charCodeAt(at - 2) === 58 && frame.charCodeAt(at - 1) === 34;
  if (head && (frame.charCodeAt(at) !== 116 || frame.charCodeAt(at + 1) !== 114)) return null;
  if (!scan.begin(frame)) return null;
  let trades: ScannedTrade[] | null = null;
  for (let k = scan.readObject(TOP_KEYS); k !== -1; k = scan.readRest(TOP_KEYS)) {
    if (k !== 1) return null; // method holding an object / array
    trades = null;
    for (let p = scan.readObject(PARAMS_KEYS); p !== -1; p = scan.readRest(PARAMS_KEYS)) {
      if (p !== 1) return null; // channel holding an object / array
      trades = scan.objects(TRADE_KEYS.get(PARAMS_KEYS.values[0]), scannedTrade); // fails at once on a ticker's data object
      if (trades === null) return null;
    }
  }
  const [method, params] = TOP_KEYS.values;
  const [channel, data] = PARAMS_KEYS.values;
  if (!scan.end() || method !== 'subscription' || params !== NESTED || data !== NESTED) return null;
  return trades !== null && isTradesChannel(channel) ? { channel, trades } : null;
}

function isTradesChannel(channel: unknown): channel is string {
  return typeof channel === 'string' && (channel.startsWith('trades.') || channel === 'trades');
}

function scannedTrade(v: readonly unknown[]): ScannedTrade {
  return {
    instrument_name: v[0],
    trade_id: v[1],
    timestamp: v[2],
    price: v[3],
    amount: v[4],
    direction: v[5],
    index_price: v[6],
    iv: v[7],
    underlying_price: v[8],
    block_trade_id: v[9],
    liquidation: v[10],
  };
}

function instrumentOf(ctx: ParserContext, name: string): Instrument | null {
  return lookupInstrument(ctx, name, deribitInstrumentFromName);
}

/** Name-parsing fallback for a trade's instrument; sets `c.error` for names that are not Deribit names at all. */
function fromName(name: string, ctx: ParserContext, c: Collect): Instrument | null {
  if (parseDeribitName(name) === null) {
    c.error = `unparseable instrument: ${name}`;
    return null;
  }
  return instrumentOf(ctx, name);
}

function isInverse(i: Instrument): boolean {
  return !isUsd(i.settlementCurrency);
}

/**
 * Trades of one list: the events, the first error and the instrument of the previous trade (`lastName` / `lastInst`:
 * a burst of trades on one instrument resolves it once per list).
 */
type Collect = {
  readonly out: MarketEvent[];
  error: string | null;
  lastName: string | null;
  lastInst: Instrument | null;
};

/**
 * A list of trade objects in the WebSocket/REST trade shape (REST recent trades, gap fill): the events, or the
 * reason of the first malformed trade. Untracked instruments yield no event.
 */
export function parseDeribitTradeList(
  data: readonly unknown[],
  ctx: ParserContext,
): { ok: true; events: readonly MarketEvent[] } | { ok: false; reason: string } {
  const c: Collect = { out: [], error: null, lastName: null, lastInst: null };
  for (const t of data) {
    if (!isObj(t)) return { ok: false, reason: 'trade is not an object' };
    parseTrade(t, ctx, c);
    if (c.error !== null) return { ok: false, reason: c.error };
  }
  return { ok: true, events: c.out };
}

function parseTrades(data: readonly unknown[], channel: string, ctx: ParserContext): ParseResult {
  const c: Collect = { out: [], error: null, lastName: null, lastInst: null };
  for (const t of data) {
    if (!isObj(t)) return deadLetter('trade is not an object', channel);
    parseTrade(t, ctx, c);
    if (c.error !== null) return deadLetter(c.error, channel);
  }
  return eventsOrUntracked(c.out, channel);
}

function parseTrade(t: Obj, ctx: ParserContext, c: Collect): void {
  const name = strValue(t['instrument_name']);
  const tradeId = idValue(t['trade_id']);
  const ts = numValue(t['timestamp']);
  const price = numValue(t['price']);
  const amount = numValue(t['amount']);
  const direction = t['direction'];
  const s: TakerSide | null = direction === 'buy' || direction === 'sell' ? direction : null;
  if (name === null || tradeId === null || ts === null || price === null || amount === null || s === null) {
    c.error = 'trade missing instrument_name/trade_id/timestamp/price/amount/direction';
    return;
  }
  let inst: Instrument | null;
  if (name === c.lastName) inst = c.lastInst;
  else {
    inst = ctx.instruments.get(name) ?? ctx.nameCache.get(name) ?? fromName(name, ctx, c);
    c.lastName = name;
    c.lastInst = inst;
  }
  if (inst === null || (inst.kind !== 'option' && inst.kind !== 'perp')) return; // untracked, future, combo
  const symbol = inst.symbol;
  const receivedAt = ctx.receivedAt;
  const indexPrice = numValue(t['index_price']);
  if (indexPrice !== null) ctx.indexPrices.set(symbol, indexPrice);
  if (inst.kind === 'option') {
    if (inst.strike === null || inst.expiry === null || inst.optionType === null) {
      c.error = `instrument ${name} lacks strike/expiry/type`;
      return;
    }
    const priceCurrency = inst.quoteCurrency;
    let priceUsd = price;
    if (!isUsd(priceCurrency)) {
      const idx = indexPrice ?? ctx.indexPrices.get(inst.symbol) ?? null;
      if (idx === null) {
        c.error = `no index price to convert ${name} price to USD`;
        return;
      }
      priceUsd = mul(price, idx);
    }
    const size = mul(amount, inst.contractSize);
    c.out.push({
      type: 'option_trade',
      event: {
        venue: VENUE,
        symbol,
        ts,
        receivedAt,
        id: `${VENUE}:${name}:${tradeId}`,
        instrument: name,
        strike: inst.strike,
        expiry: inst.expiry,
        optionType: inst.optionType,
        price,
        priceCurrency,
        priceUsd,
        size,
        premiumUsd: mul(priceUsd, size),
        side: s,
        iv: ivFromPercent(numValue(t['iv'])),
        indexPrice,
        underlyingPrice: numValue(t['underlying_price']),
        tradeId,
        block: typeof t['block_trade_id'] === 'string',
      },
    });
    return;
  }
  // perp: inverse `amount` is USD, linear `amount` is coins
  const size = isInverse(inst) ? clean(amount / price) : amount;
  c.out.push({
    type: 'perp_trade',
    event: {
      venue: VENUE,
      symbol,
      ts,
      receivedAt,
      id: `${VENUE}:${name}:${tradeId}`,
      market: 'perp',
      instrument: name,
      price,
      size,
      side: s,
      tradeId,
    },
  });
  const liq = strValue(t['liquidation']);
  if (liq !== null) {
    // T: the taker was liquidated (a taker sell closes a long); M: the maker (opposite side) was liquidated.
    const takerPos: 'long' | 'short' = s === 'sell' ? 'long' : 'short';
    const makerPos: 'long' | 'short' = takerPos === 'long' ? 'short' : 'long';
    const sides: readonly ('long' | 'short')[] =
      liq === 'T' ? [takerPos] : liq === 'M' ? [makerPos] : liq === 'MT' ? [takerPos, makerPos] : [];
    for (const pos of sides) {
      c.out.push({
        type: 'liquidation',
        event: {
          venue: VENUE,
          symbol,
          ts,
          receivedAt,
          id: `${VENUE}:liq:${name}:${tradeId}:${pos}`,
          instrument: name,
          side: pos,
          price,
          size,
        },
      });
    }
  }
}

function parseTicker(d: Obj, channel: string, ctx: ParserContext): ParseResult {
  const name = str(d, 'instrument_name');
  const ts = num(d, 'timestamp');
  if (name === null || ts === null) return deadLetter('ticker missing instrument_name/timestamp', channel);
  const parsed = parseDeribitName(name);
  if (parsed === null) return deadLetter(`unparseable instrument: ${name}`, channel);
  if (parsed.kind === 'combo' || parsed.kind === 'future' || parsed.kind === 'spot') return ignored('untracked', name);
  const inst = instrumentOf(ctx, name);
  if (inst === null) return ignored('untracked', name);
  const indexPrice = num(d, 'index_price');
  if (indexPrice !== null) ctx.indexPrices.set(inst.symbol, indexPrice);
  const mark = num(d, 'mark_price');
  const symbol = inst.symbol;
  const receivedAt = ctx.receivedAt;
  if (parsed.kind === 'option') {
    if (inst.strike === null || inst.expiry === null || inst.optionType === null) {
      return deadLetter(`instrument ${name} lacks strike/expiry/type`, channel);
    }
    const greeks = obj(d, 'greeks');
    const g = (k: string): number | null => (greeks === null ? null : num(greeks, k));
    const oi = num(d, 'open_interest');
    const markUsd = mark === null ? null : isUsd(inst.quoteCurrency) ? mark : indexPrice === null ? null : mul(mark, indexPrice);
    const coins = (k: string): number | null => {
      const v = num(d, k);
      return v === null ? null : mul(v, inst.contractSize);
    };
    const stats = obj(d, 'stats');
    const volume = stats === null ? null : num(stats, 'volume');
    const book = tickerBook(
      {
        priceCurrency: inst.quoteCurrency,
        bid: num(d, 'best_bid_price'),
        ask: num(d, 'best_ask_price'),
        bidSize: coins('best_bid_amount'),
        askSize: coins('best_ask_amount'),
        last: num(d, 'last_price'),
        volume24h: volume === null ? null : mul(volume, inst.contractSize),
      },
      usdPerUnit(inst.quoteCurrency, indexPrice),
    );
    return events([
      {
        type: 'option_ticker',
        event: {
          venue: VENUE,
          symbol,
          ts,
          receivedAt,
          instrument: name,
          id: rowId(VENUE, 'option_ticker', name, ts),
          strike: inst.strike,
          expiry: inst.expiry,
          optionType: inst.optionType,
          markPrice: markUsd,
          markIv: ivFromPercent(num(d, 'mark_iv')),
          // A side without a quote has no IV: Deribit sends 0 for an empty bid and its 500 % cap for an empty ask.
          bidIv: book.bidPrice === null ? null : ivFromPercent(positive(d, 'bid_iv')),
          askIv: book.askPrice === null ? null : ivFromPercent(positive(d, 'ask_iv')),
          delta: g('delta'),
          gamma: g('gamma'),
          vega: g('vega'),
          theta: g('theta'),
          openInterest: oi === null ? null : mul(oi, inst.contractSize),
          underlyingPrice: num(d, 'underlying_price'),
          indexPrice,
          ...book,
        },
      },
    ]);
  }
  // perp: inverse open_interest is USD, linear is coins
  const oi = num(d, 'open_interest');
  let oiCoins: number | null = null;
  let oiUsd: number | null = null;
  if (oi !== null) {
    if (isInverse(inst)) {
      oiUsd = oi;
      oiCoins = mark === null || mark === 0 ? null : clean(oi / mark);
    } else {
      oiCoins = oi;
      oiUsd = mark === null ? null : mul(oi, mark);
    }
  }
  return events([
    {
      type: 'perp_stats',
      event: {
        venue: VENUE,
        symbol,
        ts,
        receivedAt,
        instrument: name,
        id: rowId(VENUE, 'perp_stats', name, ts),
        openInterest: oiCoins,
        openInterestUsd: oiUsd,
        fundingRate: num(d, 'funding_8h'),
        nextFundingTime: null,
        markPrice: mark,
        indexPrice,
      },
    },
  ]);
}

function parseIndex(d: Obj, channel: string, vol: boolean, ctx: ParserContext): ParseResult {
  const name = str(d, 'index_name');
  const ts = num(d, 'timestamp');
  const value = num(d, vol ? 'volatility' : 'price');
  if (name === null || ts === null || value === null) return deadLetter('index missing index_name/timestamp/value', channel);
  const symbol = symbolForBase(name.split('_')[0] ?? '');
  if (symbol === null) return ignored('untracked', name);
  if (!vol) ctx.indexPrices.set(symbol, value);
  const kind = vol ? 'vol_index' : 'index';
  return events([
    {
      type: 'index',
      event: { venue: VENUE, symbol, ts, receivedAt: ctx.receivedAt, id: rowId(VENUE, kind, name, ts), kind, name, value },
    },
  ]);
}
