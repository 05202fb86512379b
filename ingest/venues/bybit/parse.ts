/**
 * Bybit V5 public frames -> normalized events. Topics: publicTrade.<baseCoin> (options), publicTrade.<symbol>
 * (linear perps / spot, told apart by the connection id), tickers.<option> (option tickers), tickers.<perp>
 * (perp stats; snapshot + delta merged in ctx.tickerState), allLiquidation.<symbol> (S=Buy: a long was liquidated).
 */
import { lookupInstrument } from '../../connector/context.ts';
import { JsonScan, KeySet, NESTED } from '../../connector/json-scan.ts';
import {
  deadLetter,
  events,
  eventsOrUntracked,
  ignored,
  isObj,
  idValue,
  isUsd,
  mul,
  num,
  numValue,
  parseJson,
  positive,
  rowId,
  str,
  strValue,
} from '../../connector/parse-helpers.ts';
import type { Obj } from '../../connector/parse-helpers.ts';
import type { Instrument, MarketEvent, TakerSide } from '#schemas/events.ts';
import { tickerBook, usdPerUnit } from '../../connector/ticker-book.ts';
import type { ParseResult, ParserContext } from '../../connector/types.ts';
import { bybitInstrumentFromName } from './instruments.ts';
import { bybitLinearBase } from './names.ts';

const VENUE = 'bybit';

/**
 * A frame -> its events. publicTrade frames of flat trade objects are read in one pass without JSON.parse
 * (`scanPublicTradeFrame`); every other frame, and any the scan does not handle, takes `parseBybitFrameJson`. Both give
 * the same result for every frame.
 */
export function parseBybitFrame(frame: string, ctx: ParserContext): ParseResult {
  const scanned = scanPublicTradeFrame(frame);
  return scanned === null ? parseBybitFrameJson(frame, ctx) : trades(scanned.trades, scanned.topic, ctx);
}

/** The JSON.parse path of `parseBybitFrame`: every frame. */
export function parseBybitFrameJson(frame: string, ctx: ParserContext): ParseResult {
  const msg = parseJson(frame);
  if (msg === undefined) return deadLetter('malformed json');
  if (!isObj(msg)) return deadLetter('frame is not a JSON object');
  const topic = strValue(msg['topic']);
  if (topic === null) return control(msg);
  const data = msg['data'];
  if (topic.startsWith('publicTrade.') || topic === 'publicTrade') {
    return Array.isArray(data) ? trades(data, topic, ctx) : deadLetter('publicTrade data is not an array', topic);
  }
  const dot = topic.indexOf('.');
  const family = dot === -1 ? topic : topic.slice(0, dot);
  switch (family) {
    case 'publicTrade':
      return Array.isArray(data) ? trades(data, topic, ctx) : deadLetter('publicTrade data is not an array', topic);
    case 'tickers':
      return isObj(data) ? ticker(msg, data, topic, ctx) : deadLetter('tickers data is not an object', topic);
    case 'allLiquidation':
      return Array.isArray(data) ? liquidations(data, topic, ctx) : deadLetter('allLiquidation data is not an array', topic);
    default:
      return deadLetter(`unknown topic: ${topic}`, topic);
  }
}

const TOP_KEYS = new KeySet(['topic', 'data']);
const TRADE_KEYS = new KeySet(['s', 'i', 'T', 'p', 'v', 'S', 'iP', 'iv', 'BT']);

/** The members of a publicTrade trade that `trades` reads, as JSON.parse gives them (undefined when absent). */
type ScannedTrade = { s: unknown; i: unknown; T: unknown; p: unknown; v: unknown; S: unknown; iP: unknown; iv: unknown; BT: unknown };

const scan = new JsonScan();

/**
 * A publicTrade frame whose data is an array of objects with scalar members, read in one pass: its topic and trades,
 * or null for any other frame and any input the scan does not handle. Members are read in any order, a repeated
 * member's last value wins (as in JSON.parse), and nothing is acted on before the whole frame was read and found valid.
 */
function scanPublicTradeFrame(frame: string): { topic: string; trades: ScannedTrade[] } | null {
  // Most frames are tickers and order books: one whose usual head holds a topic not starting with 'p' is left to
  // JSON.parse without a scan (whatever the frame, it is parsed right).
  const at = topicAt(frame);
  if (at !== -1 && frame.charCodeAt(at) !== 112) return null;
  if (!scan.begin(frame)) return null;
  let list: ScannedTrade[] | null = null;
  for (let k = scan.readObject(TOP_KEYS); k !== -1; k = scan.readRest(TOP_KEYS)) {
    if (k !== 1) return null; // topic holding an object / array
    list = scan.objects(TRADE_KEYS, scannedTrade);
    if (list === null) return null;
  }
  const [topic, data] = TOP_KEYS.values;
  if (!scan.end() || data !== NESTED) return null;
  return list !== null && isPublicTrade(topic) ? { topic, trades: list } : null;
}

/** Where the topic starts in the usual heads `{"topic":"` and `{"id":"` (an id starts with the topic), else -1. */
function topicAt(frame: string): number {
  const at = frame.charCodeAt(2) === 105 ? 7 : 10; // the 'i' of "id", else "topic"
  return frame.charCodeAt(at - 3) === 34 && frame.charCodeAt(at - 2) === 58 && frame.charCodeAt(at - 1) === 34 ? at : -1;
}

function isPublicTrade(topic: unknown): topic is string {
  return typeof topic === 'string' && (topic.startsWith('publicTrade.') || topic === 'publicTrade');
}

function scannedTrade(v: readonly unknown[]): ScannedTrade {
  return { s: v[0], i: v[1], T: v[2], p: v[3], v: v[4], S: v[5], iP: v[6], iv: v[7], BT: v[8] };
}

function control(msg: Obj): ParseResult {
  const op = str(msg, 'op');
  // Option connections answer subscribe without `op`: {success, ret_msg, conn_id, req_id, data:{successTopics, failTopics},
  // type:"COMMAND_RESP"}
  if (op === null && str(msg, 'type') === 'COMMAND_RESP') {
    const data = isObj(msg['data']) ? msg['data'] : null;
    const failed = data !== null && Array.isArray(data['failTopics']) ? data['failTopics'].length : 0;
    return msg['success'] === false || failed > 0
      ? ignored('venue_error', `${str(msg, 'ret_msg') ?? ''} failTopics: ${JSON.stringify(data?.['failTopics'] ?? [])}`)
      : ignored('ack', 'subscribe');
  }
  if (op === 'pong' || (op === 'ping' && str(msg, 'ret_msg') === 'pong')) return ignored('pong');
  if (op === 'subscribe' || op === 'unsubscribe') {
    return msg['success'] === false ? ignored('venue_error', str(msg, 'ret_msg') ?? op) : ignored('ack', op);
  }
  return deadLetter(`unknown message${op === null ? '' : `: ${op}`}`);
}

function instrumentOf(ctx: ParserContext, name: string): Instrument | null {
  return lookupInstrument(ctx, name, bybitInstrumentFromName);
}

function isOptionName(name: string): boolean {
  return name.includes('-');
}

/**
 * /v5/market/recent-trade rows (category option; gap fill): mapped to the publicTrade fields and read by the same
 * trade mapper. The events, or the reason the rows could not be read.
 */
export function parseBybitRecentTrades(
  rows: readonly unknown[],
  ctx: ParserContext,
): { ok: true; events: readonly MarketEvent[] } | { ok: false; reason: string } {
  const wsRows = rows.map((r) =>
    isObj(r)
      ? {
          i: r['execId'],
          T: Number(r['time']),
          p: r['price'],
          v: r['size'],
          S: r['side'],
          s: r['symbol'],
          BT: r['isBlockTrade'] === true,
          mP: r['mP'],
          iP: r['iP'],
          mIv: r['mIv'],
          iv: r['iv'],
        }
      : r,
  );
  const parsed = trades(wsRows, 'recent-trade', ctx);
  if (parsed.outcome === 'dead_letter') return { ok: false, reason: parsed.reason };
  return { ok: true, events: parsed.events };
}

function trades(data: readonly unknown[], topic: string, ctx: ParserContext): ParseResult {
  const out: MarketEvent[] = [];
  for (const t of data) {
    if (!isObj(t)) return deadLetter('trade is not an object', topic);
    const name = strValue(t['s']);
    const id = idValue(t['i']);
    const ts = numValue(t['T']);
    const price = numValue(t['p']);
    const size = numValue(t['v']);
    const s = t['S'];
    const side: TakerSide | null = s === 'Buy' ? 'buy' : s === 'Sell' ? 'sell' : null;
    if (name === null || id === null || ts === null || price === null || size === null || side === null) {
      return deadLetter('trade missing s/i/T/p/v/S', topic);
    }
    const inst = instrumentOf(ctx, name);
    if (inst === null) {
      if (isOptionName(name) || bybitLinearBase(name) !== null || /USD$|USD[A-Z]\d\d$/.test(name)) continue; // untracked
      return deadLetter(`unparseable symbol: ${name}`, topic);
    }
    const symbol = inst.symbol;
    const receivedAt = ctx.receivedAt;
    const tid = `${VENUE}:${name}:${id}`;
    if (inst.kind === 'option') {
      if (inst.strike === null || inst.expiry === null || inst.optionType === null)
        return deadLetter(`instrument ${name} lacks strike/expiry/type`, topic);
      if (!isUsd(inst.quoteCurrency)) return deadLetter(`unexpected option quote currency ${inst.quoteCurrency}`, topic);
      const coins = mul(size, inst.contractSize);
      const indexPrice = numValue(t['iP']);
      if (indexPrice !== null) ctx.indexPrices.set(inst.symbol, indexPrice);
      out.push({
        type: 'option_trade',
        event: {
          venue: VENUE,
          symbol,
          ts,
          receivedAt,
          id: tid,
          instrument: name,
          tradeId: id,
          strike: inst.strike,
          expiry: inst.expiry,
          optionType: inst.optionType,
          price,
          priceCurrency: inst.quoteCurrency,
          priceUsd: price,
          size: coins,
          premiumUsd: mul(price, coins),
          side,
          iv: numValue(t['iv']),
          indexPrice,
          underlyingPrice: null,
          block: t['BT'] === true,
        },
      });
    } else if (inst.kind === 'perp' || inst.kind === 'spot') {
      const spot = ctx.connection.startsWith('spot');
      const market = spot ? 'spot' : 'perp';
      out.push({
        type: spot ? 'spot_trade' : 'perp_trade',
        event: {
          venue: VENUE,
          symbol,
          ts,
          receivedAt,
          id: tid,
          instrument: name,
          tradeId: id,
          market,
          price,
          size: mul(size, inst.contractSize),
          side,
        },
      });
    }
  }
  return eventsOrUntracked(out, topic);
}

function ticker(msg: Obj, d: Obj, topic: string, ctx: ParserContext): ParseResult {
  const name = str(d, 'symbol') ?? topic.slice('tickers.'.length);
  const ts = num(msg, 'ts');
  if (ts === null) return deadLetter('tickers missing ts', topic);
  const inst = instrumentOf(ctx, name);
  if (inst === null) return ignored('untracked', name);
  if (inst.kind === 'option') return optionTicker(d, name, inst, ts, ctx);
  if (inst.kind !== 'perp') return ignored('untracked', name);
  const type = str(msg, 'type');
  const prev = ctx.tickerState.get(name);
  let state: Record<string, unknown>;
  if (type === 'snapshot') state = perpTickerState(undefined, d);
  else if (type === 'delta') state = perpTickerState(prev, d);
  else return deadLetter(`tickers type ${String(type)}`, topic);
  ctx.tickerState.set(name, state);
  const next = num(state, 'nextFundingTime');
  return events([
    {
      type: 'perp_stats',
      event: {
        venue: VENUE,
        symbol: inst.symbol,
        ts,
        receivedAt: ctx.receivedAt,
        id: rowId(VENUE, 'perp_stats', name, ts),
        instrument: name,
        openInterest: num(state, 'openInterest'),
        openInterestUsd: num(state, 'openInterestValue'),
        fundingRate: num(state, 'fundingRate'),
        nextFundingTime: next !== null && next > 0 ? next : null,
        markPrice: num(state, 'markPrice'),
        indexPrice: num(state, 'indexPrice'),
      },
    },
  ]);
}

/** A field of a tickers delta, else its value in the previous state (a delta only carries the fields that changed). */
function latest(prev: Obj | undefined, d: Obj, key: string): unknown {
  const v = d[key];
  return v !== undefined ? v : prev?.[key];
}

/**
 * The merged raw state of a perp tickers stream: the fields perp_stats reads, in one literal (no object spread
 * on the per-frame path). `prev` undefined = a snapshot (or a delta before any snapshot).
 */
function perpTickerState(prev: Obj | undefined, d: Obj): Record<string, unknown> {
  return {
    openInterest: latest(prev, d, 'openInterest'),
    openInterestValue: latest(prev, d, 'openInterestValue'),
    fundingRate: latest(prev, d, 'fundingRate'),
    nextFundingTime: latest(prev, d, 'nextFundingTime'),
    markPrice: latest(prev, d, 'markPrice'),
    indexPrice: latest(prev, d, 'indexPrice'),
  };
}

function optionTicker(d: Obj, name: string, inst: Instrument, ts: number, ctx: ParserContext): ParseResult {
  if (inst.strike === null || inst.expiry === null || inst.optionType === null)
    return deadLetter(`instrument ${name} lacks strike/expiry/type`, `tickers.${name}`);
  const indexPrice = num(d, 'indexPrice');
  if (indexPrice !== null) ctx.indexPrices.set(inst.symbol, indexPrice);
  const oi = num(d, 'openInterest');
  const coins = (k: string): number | null => {
    const v = num(d, k);
    return v === null ? null : mul(v, inst.contractSize);
  };
  const book = tickerBook(
    {
      priceCurrency: inst.quoteCurrency,
      bid: num(d, 'bidPrice'),
      ask: num(d, 'askPrice'),
      bidSize: coins('bidSize'),
      askSize: coins('askSize'),
      last: num(d, 'lastPrice'),
      volume24h: coins('volume24h'),
    },
    usdPerUnit(inst.quoteCurrency, indexPrice),
  );
  return events([
    {
      type: 'option_ticker',
      event: {
        venue: VENUE,
        symbol: inst.symbol,
        ts,
        receivedAt: ctx.receivedAt,
        id: rowId(VENUE, 'option_ticker', name, ts),
        instrument: name,
        strike: inst.strike,
        expiry: inst.expiry,
        optionType: inst.optionType,
        markPrice: num(d, 'markPrice'),
        markIv: num(d, 'markPriceIv'),
        // an IV of 0 with a price of 0 means "no quote"
        bidIv: positive(d, 'bidPrice') === null ? null : positive(d, 'bidIv'),
        askIv: positive(d, 'askPrice') === null ? null : positive(d, 'askIv'),
        delta: num(d, 'delta'),
        gamma: num(d, 'gamma'),
        vega: num(d, 'vega'),
        theta: num(d, 'theta'),
        openInterest: oi === null ? null : mul(oi, inst.contractSize),
        underlyingPrice: num(d, 'underlyingPrice'),
        indexPrice,
        ...book,
      },
    },
  ]);
}

function liquidations(data: readonly unknown[], topic: string, ctx: ParserContext): ParseResult {
  const out: MarketEvent[] = [];
  for (const l of data) {
    if (!isObj(l)) return deadLetter('liquidation is not an object', topic);
    const name = str(l, 's');
    const ts = num(l, 'T');
    const price = num(l, 'p');
    const size = num(l, 'v');
    const s = str(l, 'S');
    if (name === null || ts === null || price === null || size === null || (s !== 'Buy' && s !== 'Sell')) {
      return deadLetter('liquidation missing s/T/p/v/S', topic);
    }
    const inst = instrumentOf(ctx, name);
    if (inst === null || inst.kind !== 'perp') continue;
    // Bybit: "S=Buy means a long position was liquidated"
    const side = s === 'Buy' ? 'long' : 'short';
    out.push({
      type: 'liquidation',
      event: {
        venue: VENUE,
        symbol: inst.symbol,
        ts,
        receivedAt: ctx.receivedAt,
        id: `${VENUE}:liq:${name}:${ts}:${side}:${price}:${size}`,
        instrument: name,
        side,
        price,
        size: mul(size, inst.contractSize),
      },
    });
  }
  return eventsOrUntracked(out, topic);
}
