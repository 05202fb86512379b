/**
 * Bullish JSON-RPC market-data frames `{type, dataType, data}` -> events: `V1TAAnonymousTradeUpdate` (taker
 * side = isTaker ? side : opposite; the `snapshot` backfill is skipped), `V1TATickerResponse` (options: mark,
 * impliedVolatility fraction, greeks, openInterest; perps: fundingRate, openInterest(USD), mark) and
 * `V1TAIndexPrice`. Timestamps are ms strings, or 19-digit ns strings: both -> ms.
 */
import { lookupInstrument } from '../../connector/context.ts';
import {
  arr,
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
import { bullishInstrumentFromName } from './instruments.ts';

const VENUE = 'bullish';

/** '1777042734715' (ms), '1745457580158000000' (ns) or µs -> integer ms, without float rounding of the ns value. */
export function bullishMs(o: Obj, key: string): number | null {
  const v = o[key];
  if (typeof v === 'number') return Number.isFinite(v) ? Math.floor(v > 1e17 ? v / 1e6 : v > 1e14 ? v / 1e3 : v) : null;
  if (typeof v !== 'string' || !/^\d{10,19}$/.test(v)) return null;
  return Number(v.length > 13 ? v.slice(0, 13 - v.length) : v);
}

export function parseBullishFrame(frame: string, ctx: ParserContext): ParseResult {
  const msg = parseJson(frame);
  if (msg === undefined) return deadLetter('malformed json');
  if (!isObj(msg)) return deadLetter('frame is not a JSON object');
  const dataType = str(msg, 'dataType');
  if (dataType === null) {
    const err = obj(msg, 'error');
    if (err !== null) return ignored('venue_error', JSON.stringify(err).slice(0, 300));
    const result = obj(msg, 'result');
    if (result !== null)
      return str(result, 'message') === 'Keep alive pong' ? ignored('pong') : ignored('ack', idOf(msg, 'id') ?? undefined);
    return deadLetter('unknown message (no dataType/result/error)');
  }
  if (dataType === 'V1TAHeartbeat') return ignored('heartbeat');
  const data = msg['data'];
  if (data === null && dataType === 'V1TATickerResponse') return ignored('info', 'empty ticker update');
  if (!isObj(data)) return deadLetter('data is not an object', dataType);
  const out: MarketEvent[] = [];
  let error: string | null;
  if (dataType === 'V1TAAnonymousTradeUpdate') {
    if (str(msg, 'type') === 'snapshot') return ignored('info', 'trade snapshot backfill');
    error = trades(data, ctx, out);
  } else if (dataType === 'V1TATickerResponse') error = ticker(data, ctx, out);
  else if (dataType === 'V1TAIndexPrice') error = indexPrice(data, ctx, out);
  else return deadLetter(`unknown dataType: ${dataType}`, dataType);
  return error !== null ? deadLetter(error, dataType) : eventsOrUntracked(out, dataType);
}

function instrumentOf(name: string, ctx: ParserContext): { inst: Instrument | null; error: string | null } {
  const inst = lookupInstrument(ctx, name, bullishInstrumentFromName);
  if (inst !== null) return { inst, error: null };
  // spot pairs (BTCUSDC) and untracked coins are not ours; a dashed tracked name we cannot read is an error
  const dashed = name.includes('-');
  return { inst: null, error: dashed && symbolForBase(name.split('-')[0] ?? '') !== null ? `unparseable instrument: ${name}` : null };
}

function trades(data: Obj, ctx: ParserContext, out: MarketEvent[]): string | null {
  const list = arr(data, 'trades');
  if (list === null) return 'trade update without trades array';
  for (const t of list) {
    if (!isObj(t)) return 'trade is not an object';
    const name = str(t, 'symbol');
    const tradeId = idOf(t, 'tradeId');
    const price = num(t, 'price');
    const qty = num(t, 'quantity');
    const ts = bullishMs(t, 'createdAtTimestamp');
    const sd = str(t, 'side');
    const isTaker = t['isTaker'];
    if (
      name === null ||
      tradeId === null ||
      price === null ||
      qty === null ||
      ts === null ||
      (sd !== 'BUY' && sd !== 'SELL') ||
      typeof isTaker !== 'boolean'
    ) {
      return 'trade missing symbol/tradeId/price/quantity/createdAtTimestamp/side/isTaker';
    }
    const { inst, error } = instrumentOf(name, ctx);
    if (inst === null) {
      if (error !== null) return error;
      continue;
    }
    const buy = sd === 'BUY' ? isTaker : !isTaker;
    const size = mul(qty, inst.contractSize);
    const side = buy ? 'buy' : 'sell';
    const [symbol, receivedAt, id] = [inst.symbol, ctx.receivedAt, `${VENUE}:${name}:${tradeId}`];
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
          instrument: name,
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
          indexPrice: ctx.indexPrices.get(symbol) ?? null,
          underlyingPrice: null,
          block: false,
        },
      });
    } else if (inst.kind === 'perp')
      out.push({
        type: 'perp_trade',
        event: { venue: VENUE, symbol, ts, receivedAt, id, instrument: name, tradeId, side, price, size, market: 'perp' },
      });
  }
  return null;
}

function ticker(d: Obj, ctx: ParserContext, out: MarketEvent[]): string | null {
  const name = str(d, 'symbol');
  const ts = bullishMs(d, 'createdAtTimestamp');
  if (name === null || ts === null) return 'ticker missing symbol/createdAtTimestamp';
  const { inst, error } = instrumentOf(name, ctx);
  if (inst === null) return error;
  const oi = num(d, 'openInterest');
  const coins = oi === null ? null : mul(oi, inst.contractSize);
  const symbol = inst.symbol;
  const receivedAt = ctx.receivedAt;
  const id = rowId(VENUE, 'ticker', name, ts);
  const indexPrice = ctx.indexPrices.get(symbol) ?? null;
  // explicit literals, no object spread on the per-frame path
  if (inst.kind === 'option' && inst.strike !== null && inst.expiry !== null && inst.optionType !== null) {
    // V1TATickerResponse: bestBid / bestAsk (USDC), bidVolume / askVolume and baseVolume (24 h) in base quantity
    // (× contract size = coins), last; absent or null when the book side is empty.
    const qty = (k: string): number | null => {
      const v = num(d, k);
      return v === null ? null : mul(v, inst.contractSize);
    };
    const q = inst.quoteCurrency;
    const book = tickerBook(
      {
        priceCurrency: q,
        bid: num(d, 'bestBid'),
        ask: num(d, 'bestAsk'),
        bidSize: qty('bidVolume'),
        askSize: qty('askVolume'),
        last: num(d, 'last'),
        volume24h: qty('baseVolume'),
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
        markPrice: num(d, 'markPrice'),
        markIv: positive(d, 'impliedVolatility'),
        bidIv: null,
        askIv: null,
        delta: num(d, 'delta'),
        gamma: num(d, 'gamma'),
        vega: num(d, 'vega'),
        theta: num(d, 'theta'),
        openInterest: coins,
        underlyingPrice: null,
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
        openInterest: coins,
        openInterestUsd: num(d, 'openInterestUSD'),
        fundingRate: num(d, 'fundingRate'),
        nextFundingTime: null,
        markPrice: num(d, 'markPrice'),
        indexPrice,
      },
    });
  }
  return null;
}

function indexPrice(d: Obj, ctx: ParserContext, out: MarketEvent[]): string | null {
  const asset = str(d, 'assetSymbol');
  const value = num(d, 'price');
  const ts = bullishMs(d, 'updatedAtTimestamp');
  if (asset === null || value === null || ts === null) return 'index price missing assetSymbol/price/updatedAtTimestamp';
  const symbol = symbolForBase(asset);
  if (symbol === null) return null;
  ctx.indexPrices.set(symbol, value);
  out.push({
    type: 'index',
    event: {
      venue: VENUE,
      symbol,
      ts,
      receivedAt: ctx.receivedAt,
      id: rowId(VENUE, 'index', asset, ts),
      kind: 'index',
      name: asset,
      value,
    },
  });
  return null;
}
