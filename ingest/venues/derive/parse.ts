/**
 * Derive v3 public frames -> normalized events: `trades.{option|perp}.{CCY}` (arrays of trades, taker
 * `direction`, amounts in coins, USDC prices, no IV), `ticker_slim.{instrument}.{ms}` (option_pricing: mark IV
 * and greeks as fractions, stats.oi in coins, hourly funding `f` on perps) and `spot_feed.{CCY}` (index).
 */
import { lookupInstrument } from '../../connector/context.ts';
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
} from '../../connector/parse-helpers.ts';
import type { Obj } from '../../connector/parse-helpers.ts';
import type { Instrument, MarketEvent } from '#schemas/events.ts';
import { tickerBook, usdPerUnit } from '../../connector/ticker-book.ts';
import type { ParseResult, ParserContext } from '../../connector/types.ts';
import { deriveInstrumentFromName } from './instruments.ts';
import { parseDeriveName } from './names.ts';

const VENUE = 'derive';

export function parseDeriveFrame(frame: string, ctx: ParserContext): ParseResult {
  const msg = parseJson(frame);
  if (msg === undefined) return deadLetter('malformed json');
  if (!isObj(msg)) return deadLetter('frame is not a JSON object');
  const error = obj(msg, 'error');
  if (error !== null) return ignored('venue_error', `${String(error['code'])} ${str(error, 'message') ?? ''}`.trim());
  if (msg['result'] !== undefined) return ignored('ack', idOf(msg, 'id') ?? undefined);
  if (str(msg, 'method') !== 'subscription') return deadLetter('unknown message (no method/result/error)');
  const params = obj(msg, 'params');
  const channel = params === null ? null : str(params, 'channel');
  if (params === null || channel === null) return deadLetter('subscription without params.channel');
  const data = params['data'];
  const kind = channel.slice(0, channel.indexOf('.'));
  const out: MarketEvent[] = [];
  let error2: string | null = null;
  if (kind === 'trades') {
    if (!Array.isArray(data)) return deadLetter('trades data is not an array', channel);
    for (const t of data) {
      if (!isObj(t)) return deadLetter('trade is not an object', channel);
      error2 = trade(t, ctx, out);
      if (error2 !== null) return deadLetter(error2, channel);
    }
  } else if (kind === 'ticker_slim') {
    if (!isObj(data)) return deadLetter('ticker_slim data is not an object', channel);
    error2 = tickerSlim(channel, data, ctx, out);
  } else if (kind === 'spot_feed') {
    if (!isObj(data)) return deadLetter('spot_feed data is not an object', channel);
    error2 = spotFeed(data, ctx, out);
  } else return deadLetter(`unknown channel: ${channel}`, channel);
  return error2 !== null ? deadLetter(error2, channel) : eventsOrUntracked(out, channel);
}

/** The instrument, null when untracked (or a name we cannot read); Derive sizes are coins, so the name suffices. */
function instrumentOf(name: string, ctx: ParserContext): Instrument | null {
  return lookupInstrument(ctx, name, deriveInstrumentFromName);
}

function trade(t: Obj, ctx: ParserContext, out: MarketEvent[]): string | null {
  const name = str(t, 'instrument_name');
  const tradeId = idOf(t, 'trade_id');
  const ts = num(t, 'timestamp');
  const price = num(t, 'trade_price');
  const size = num(t, 'trade_amount');
  const side = str(t, 'direction');
  if (name === null || tradeId === null || ts === null || price === null || size === null || (side !== 'buy' && side !== 'sell')) {
    return 'trade missing instrument_name/trade_id/timestamp/trade_price/trade_amount/direction';
  }
  const inst = instrumentOf(name, ctx);
  if (inst === null) return parseDeriveName(name) === null ? `unparseable instrument: ${name}` : null;
  const id = `${VENUE}:${name}:${tradeId}`;
  const symbol = inst.symbol;
  const receivedAt = ctx.receivedAt;
  const indexPrice = num(t, 'index_price');
  if (indexPrice !== null) ctx.indexPrices.set(symbol, indexPrice);
  // explicit literals, no object spread: spreads cost ~10 µs per event on Node 20 (bench/ingest-parsers-smaller-venues.ts)
  if (inst.kind === 'option' && inst.strike !== null && inst.expiry !== null && inst.optionType !== null) {
    out.push({
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
        price,
        strike: inst.strike,
        expiry: inst.expiry,
        optionType: inst.optionType,
        priceCurrency: inst.quoteCurrency,
        priceUsd: price,
        size,
        premiumUsd: mul(price, size),
        iv: null,
        indexPrice,
        underlyingPrice: null,
        block: str(t, 'rfq_id') !== null,
      },
    });
  } else if (inst.kind === 'perp' || inst.kind === 'spot') {
    const spot = inst.kind === 'spot';
    out.push({
      type: spot ? 'spot_trade' : 'perp_trade',
      event: { venue: VENUE, symbol, ts, receivedAt, id, instrument: name, tradeId, side, price, market: spot ? 'spot' : 'perp', size },
    });
  }
  return null;
}

function tickerSlim(channel: string, data: Obj, ctx: ParserContext, out: MarketEvent[]): string | null {
  const name = channel.split('.')[1] ?? '';
  const tk = obj(data, 'instrument_ticker');
  if (tk === null) return 'ticker_slim without instrument_ticker';
  const ts = num(tk, 't') ?? num(data, 'timestamp');
  if (ts === null) return 'ticker_slim without t/timestamp';
  const inst = instrumentOf(name, ctx);
  if (inst === null) return parseDeriveName(name) === null ? `unparseable instrument: ${name}` : null;
  const stats = obj(tk, 'stats');
  const oi = stats === null ? null : num(stats, 'oi');
  const indexPrice = positive(tk, 'I');
  const symbol = inst.symbol;
  const receivedAt = ctx.receivedAt;
  const id = rowId(VENUE, 'ticker', name, ts);
  // explicit literals, no object spread on the per-frame path (Derive rows keep `id` after `instrument`)
  if (inst.kind === 'option' && inst.strike !== null && inst.expiry !== null && inst.optionType !== null) {
    const op = obj(tk, 'option_pricing');
    const g = (k: string): number | null => (op === null ? null : num(op, k));
    const iv = (k: string): number | null => (op === null ? null : positive(op, k));
    // b/a USDC per coin, B/A sizes in coins; stats.v = 24 h volume in contracts (1 coin each); no last price.
    const q = inst.quoteCurrency;
    const book = tickerBook(
      {
        priceCurrency: q,
        bid: num(tk, 'b'),
        ask: num(tk, 'a'),
        bidSize: num(tk, 'B'),
        askSize: num(tk, 'A'),
        volume24h: stats === null ? null : num(stats, 'v'),
      },
      usdPerUnit(q, indexPrice),
    );
    out.push({
      type: 'option_ticker',
      event: {
        venue: VENUE,
        symbol,
        ts,
        receivedAt,
        instrument: name,
        id,
        strike: inst.strike,
        expiry: inst.expiry,
        optionType: inst.optionType,
        markPrice: num(tk, 'M'),
        markIv: iv('i'),
        bidIv: iv('bi'),
        askIv: iv('ai'),
        delta: g('d'),
        gamma: g('g'),
        vega: g('v'),
        theta: g('t'),
        openInterest: oi,
        underlyingPrice: iv('f'),
        indexPrice,
        ...book,
      },
    });
  } else if (inst.kind === 'perp') {
    out.push({
      type: 'perp_stats',
      event: {
        venue: VENUE,
        symbol,
        ts,
        receivedAt,
        instrument: name,
        id,
        openInterest: oi,
        openInterestUsd: null,
        fundingRate: num(tk, 'f'),
        nextFundingTime: null,
        markPrice: num(tk, 'M'),
        indexPrice,
      },
    });
  }
  return null;
}

function spotFeed(data: Obj, ctx: ParserContext, out: MarketEvent[]): string | null {
  const feeds = obj(data, 'feeds');
  const ts = num(data, 'timestamp');
  if (feeds === null || ts === null) return 'spot_feed without feeds/timestamp';
  for (const [ccy, f] of Object.entries(feeds)) {
    const symbol = symbolForBase(ccy);
    if (symbol === null || !isObj(f)) continue;
    const value = num(f, 'price');
    if (value === null) return `spot_feed ${ccy} without price`;
    ctx.indexPrices.set(symbol, value);
    out.push({
      type: 'index',
      event: {
        venue: VENUE,
        symbol,
        ts,
        receivedAt: ctx.receivedAt,
        id: rowId(VENUE, 'index', ccy, ts),
        kind: 'index',
        name: `${ccy}-USD`,
        value,
      },
    });
  }
  return null;
}
