/**
 * Thalex `public/subscribe` notifications `{channel_name, notification}` -> normalized events:
 * `recent_trades.<UNDERLYING>.all` (array of `[price, size, side, time_s, instrument, implied_taker]`; no trade
 * id, so the id is a hash of those fields), `ticker.<instrument>.<delay>` (mark, iv, delta, index, forward,
 * open_interest; perps funding_rate) and `price_index.<UNDERLYING>`. Times are SECONDS (float) -> ms.
 */
import { lookupInstrument } from '../../connector/context.ts';
import {
  deadLetter,
  eventsOrUntracked,
  hash32,
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
import type { MarketEvent, TakerSide } from '#schemas/events.ts';
import { tickerBook, usdPerUnit } from '../../connector/ticker-book.ts';
import type { ParseResult, ParserContext } from '../../connector/types.ts';
import { thalexInstrumentFromName } from './instruments.ts';

const VENUE = 'thalex';

const toMs = (s: number): number => Math.round(s * 1000);

export function parseThalexFrame(frame: string, ctx: ParserContext): ParseResult {
  const msg = parseJson(frame);
  if (msg === undefined) return deadLetter('malformed json');
  if (!isObj(msg)) return deadLetter('frame is not a JSON object');
  const channel = str(msg, 'channel_name');
  if (channel === null) {
    const err = obj(msg, 'error');
    if (err !== null) return ignored('venue_error', `${String(err['code'])} ${str(err, 'message') ?? ''}`.trim());
    if (msg['result'] !== undefined) return ignored('ack', idOf(msg, 'id') ?? undefined);
    return deadLetter('unknown message (no channel_name/result/error)');
  }
  const n = msg['notification'];
  const kind = channel.slice(0, channel.indexOf('.'));
  const out: MarketEvent[] = [];
  let error: string | null;
  if (kind === 'recent_trades') {
    const list = Array.isArray(n) ? n : isObj(n) && Array.isArray(n['trades']) ? n['trades'] : null;
    if (list === null) return deadLetter('recent_trades notification is not an array', channel);
    error = null;
    for (const t of list) {
      error = trade(t, ctx, out);
      if (error !== null) break;
    }
  } else if (kind === 'ticker') {
    if (!isObj(n)) return deadLetter('ticker notification is not an object', channel);
    error = ticker(channel.split('.')[1] ?? '', n, ctx, out);
  } else if (kind === 'price_index') {
    if (!isObj(n)) return deadLetter('price_index notification is not an object', channel);
    error = priceIndex(channel.split('.')[1] ?? '', n, ctx, out);
  } else return deadLetter(`unknown channel: ${channel}`, channel);
  return error !== null ? deadLetter(error, channel) : eventsOrUntracked(out, channel);
}

interface RawTrade {
  readonly price: number;
  readonly size: number;
  readonly side: TakerSide;
  readonly time: number;
  readonly name: string;
  readonly id: string | null;
}

/** Spec shape: positional array; go-thalex models objects (trade_id, direction, amount, price, time, instrument_name). */
function rawTrade(t: unknown): RawTrade | null {
  if (Array.isArray(t)) {
    const [price, size, side, time, name] = t as unknown[];
    if (
      typeof price !== 'number' ||
      typeof size !== 'number' ||
      typeof time !== 'number' ||
      typeof name !== 'string' ||
      (side !== 'buy' && side !== 'sell')
    )
      return null;
    return { price, size, side, time, name, id: null };
  }
  if (!isObj(t)) return null;
  const price = num(t, 'price');
  const size = num(t, 'amount');
  const side = str(t, 'direction') ?? str(t, 'side');
  const time = num(t, 'time') ?? num(t, 'timestamp');
  const name = str(t, 'instrument_name');
  if (price === null || size === null || time === null || name === null || (side !== 'buy' && side !== 'sell')) return null;
  return { price, size, side, time, name, id: idOf(t, 'trade_id') };
}

function trade(t: unknown, ctx: ParserContext, out: MarketEvent[]): string | null {
  const r = rawTrade(t);
  if (r === null) return 'trade is not [price, size, side, time, instrument, implied_taker]';
  const inst = lookupInstrument(ctx, r.name, thalexInstrumentFromName);
  if (inst === null) return symbolForBase(r.name.split('-')[0] ?? '') === null ? null : `unparseable instrument: ${r.name}`;
  const tradeId = r.id ?? hash32(`${r.name}|${r.time}|${r.price}|${r.size}|${r.side}`);
  const ts = toMs(r.time);
  const id = `${VENUE}:${r.name}:${tradeId}`;
  const [symbol, receivedAt, instrument, side, price, size] = [inst.symbol, ctx.receivedAt, r.name, r.side, r.price, r.size];
  // explicit literals, no object spread (slow on Node 20)
  if (inst.kind === 'option' && inst.strike !== null && inst.expiry !== null && inst.optionType !== null) {
    out.push({
      type: 'option_trade',
      event: {
        venue: VENUE,
        symbol,
        ts,
        receivedAt,
        id,
        instrument,
        tradeId,
        side,
        price,
        size,
        strike: inst.strike,
        expiry: inst.expiry,
        optionType: inst.optionType,
        priceCurrency: inst.quoteCurrency,
        priceUsd: price,
        premiumUsd: mul(price, size),
        iv: null,
        indexPrice: null,
        underlyingPrice: null,
        block: false,
      },
    });
  } else if (inst.kind === 'perp')
    out.push({
      type: 'perp_trade',
      event: { venue: VENUE, symbol, ts, receivedAt, id, instrument, tradeId, side, price, size, market: 'perp' },
    });
  return null;
}

function ticker(name: string, n: Obj, ctx: ParserContext, out: MarketEvent[]): string | null {
  const inst = lookupInstrument(ctx, name, thalexInstrumentFromName);
  if (inst === null) return symbolForBase(name.split('-')[0] ?? '') === null ? null : `unparseable instrument: ${name}`;
  const markTs = num(n, 'mark_timestamp');
  const ts = markTs === null ? ctx.receivedAt : toMs(markTs);
  const symbol = inst.symbol;
  const receivedAt = ctx.receivedAt;
  const id = rowId(VENUE, 'ticker', name, ts);
  const indexPrice = positive(n, 'index');
  if (indexPrice !== null) ctx.indexPrices.set(symbol, indexPrice);
  // explicit literals, no object spread on the per-frame path
  if (inst.kind === 'option' && inst.strike !== null && inst.expiry !== null && inst.optionType !== null) {
    // Prices in USD per coin, amounts and volume_24h in coins.
    const q = inst.quoteCurrency;
    const book = tickerBook(
      {
        priceCurrency: q,
        bid: num(n, 'best_bid_price'),
        ask: num(n, 'best_ask_price'),
        bidSize: num(n, 'best_bid_amount'),
        askSize: num(n, 'best_ask_amount'),
        last: num(n, 'last_price'),
        volume24h: num(n, 'volume_24h'),
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
        id,
        instrument: name,
        strike: inst.strike,
        expiry: inst.expiry,
        optionType: inst.optionType,
        markPrice: num(n, 'mark_price'),
        markIv: positive(n, 'iv'),
        bidIv: null,
        askIv: null,
        delta: num(n, 'delta'),
        gamma: null,
        vega: null,
        theta: null,
        openInterest: num(n, 'open_interest'),
        underlyingPrice: positive(n, 'forward'),
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
        id,
        instrument: name,
        openInterest: num(n, 'open_interest'),
        openInterestUsd: null,
        fundingRate: num(n, 'funding_rate'),
        nextFundingTime: null,
        markPrice: num(n, 'mark_price'),
        indexPrice,
      },
    });
  }
  return null;
}

function priceIndex(underlying: string, n: Obj, ctx: ParserContext, out: MarketEvent[]): string | null {
  const price = num(n, 'price');
  const time = num(n, 'timestamp');
  if (price === null || time === null) return 'price_index without price/timestamp';
  const name = str(n, 'index_name') ?? underlying;
  const symbol = symbolForBase(name.replace(/USD$/, ''));
  if (symbol === null) return null;
  ctx.indexPrices.set(symbol, price);
  const ts = toMs(time);
  out.push({
    type: 'index',
    event: { venue: VENUE, symbol, ts, receivedAt: ctx.receivedAt, id: rowId(VENUE, 'index', name, ts), kind: 'index', name, value: price },
  });
  return null;
}
