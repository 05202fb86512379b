/**
 * Paradex frames -> events. The JSON-RPC control plane (acks, errors) is text; public channel data is SBE binary
 * (`parseParadexBinary`: TradeEvent, MarketSummaryEvent, FundingDataEvent; µs times) and, on connections without
 * SBE negotiated, JSON `subscription` pushes of the same channels (`parseParadexFrame`; ms times). Trades:
 * taker `side`, base-unit sizes, no IV; LIQUIDATION fills also give a liquidation event; BLOCK_TRADE -> block;
 * UNWIND_TRANSFER / SETTLE_MARKET are not market trades and are skipped.
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
  rowId,
  str,
} from '../../connector/parse-helpers.ts';
import type { MarketEvent } from '#schemas/events.ts';
import { tickerBook, usdPerUnit } from '../../connector/ticker-book.ts';
import type { ParseResult, ParserContext } from '../../connector/types.ts';
import { paradexInstrumentFromName } from './instruments.ts';
import { decodeSbe, TEMPLATE } from './sbe.ts';

const VENUE = 'paradex';

interface TradeIn {
  readonly market: string;
  readonly id: string;
  readonly side: 'buy' | 'sell';
  readonly price: number;
  readonly size: number;
  readonly ts: number;
  readonly type: string;
}
interface SummaryIn {
  readonly market: string;
  readonly ts: number;
  readonly mark: number | null;
  readonly index: number | null;
  readonly oi: number | null;
  readonly funding: number | null;
  readonly markIv: number | null;
  readonly bidIv: number | null;
  readonly askIv: number | null;
  readonly delta: number | null;
  readonly gamma: number | null;
  readonly vega: number | null;
  readonly theta: number | null;
  /** Best bid / ask and last trade, USD per coin; sizes in coins (JSON only: the SBE summary has no sizes). */
  readonly bid: number | null;
  readonly ask: number | null;
  readonly last: number | null;
  readonly bidSize: number | null;
  readonly askSize: number | null;
}

const TRADE_TYPE_NAMES: Readonly<Record<number, string>> = {
  1: 'FILL',
  2: 'LIQUIDATION',
  3: 'UNWIND_TRANSFER',
  4: 'SETTLE_MARKET',
  5: 'RPI',
  6: 'BLOCK_TRADE',
};
const usToMs = (us: number): number => Math.floor(us / 1000);
const posIv = (x: number | null): number | null => (x !== null && x > 0 ? x : null);

export function parseParadexBinary(frame: Uint8Array, ctx: ParserContext): ParseResult {
  const r = decodeSbe(frame);
  if (!r.ok) return deadLetter(r.reason, r.template === null ? '' : `sbe:${r.template}`);
  const m = r.message;
  const out: MarketEvent[] = [];
  switch (m.template) {
    case TEMPLATE.heartbeat:
      return ignored('heartbeat');
    case TEMPLATE.subscribed:
      return ignored('ack', 'sbe subscribed');
    case TEMPLATE.trade: {
      const side = m.side === 1 ? 'buy' : m.side === 2 ? 'sell' : null;
      if (side === null) return deadLetter(`sbe trade side ${m.side}`, `trades.${m.market}`);
      trade(
        {
          market: m.market,
          id: m.tradeId,
          side,
          price: m.price,
          size: m.size,
          ts: usToMs(m.createdAtUs),
          type: TRADE_TYPE_NAMES[m.tradeType] ?? 'UNKNOWN',
        },
        ctx,
        out,
      );
      return eventsOrUntracked(out, `trades.${m.market}`);
    }
    case TEMPLATE.marketSummary:
      summary(
        {
          market: m.market,
          ts: usToMs(m.timestampUs),
          mark: m.markPrice,
          index: m.indexPrice,
          oi: m.openInterest,
          funding: m.fundingRate,
          markIv: m.markIv,
          bidIv: m.bidIv,
          askIv: m.askIv,
          delta: m.delta,
          gamma: m.gamma,
          vega: m.vega,
          theta: m.theta,
          bid: m.bid,
          ask: m.ask,
          last: m.lastPrice,
          bidSize: null,
          askSize: null,
        },
        ctx,
        out,
      );
      return eventsOrUntracked(out, `markets_summary.${m.market}`);
    case TEMPLATE.fundingData:
      funding(m.market, usToMs(m.createdAtUs), m.fundingRate, ctx, out);
      return eventsOrUntracked(out, `funding_data.${m.market}`);
    default:
      return deadLetter('unexpected sbe message');
  }
}

export function parseParadexFrame(frame: string, ctx: ParserContext): ParseResult {
  const msg = parseJson(frame);
  if (msg === undefined) return deadLetter('malformed json (SBE binary frames need parseBinary)');
  if (!isObj(msg)) return deadLetter('frame is not a JSON object');
  const err = obj(msg, 'error');
  if (err !== null) return ignored('venue_error', `${String(err['code'])} ${str(err, 'message') ?? ''}`.trim());
  if (msg['result'] !== undefined) return ignored('ack', idOf(msg, 'id') ?? undefined);
  const params = obj(msg, 'params');
  const channel = params === null ? null : str(params, 'channel');
  const d = params === null ? null : obj(params, 'data');
  if (str(msg, 'method') !== 'subscription' || channel === null || d === null)
    return deadLetter('unknown message (no subscription params.channel/data)');
  const kind = channel.slice(0, channel.indexOf('.') < 0 ? channel.length : channel.indexOf('.'));
  const out: MarketEvent[] = [];
  if (kind === 'trades') {
    const market = str(d, 'market');
    const id = idOf(d, 'id');
    const sd = str(d, 'side');
    const price = num(d, 'price');
    const size = num(d, 'size');
    const ts = num(d, 'created_at');
    if (market === null || id === null || price === null || size === null || ts === null || (sd !== 'BUY' && sd !== 'SELL'))
      return deadLetter('trade missing market/id/side/price/size/created_at', channel);
    trade({ market, id, side: sd === 'BUY' ? 'buy' : 'sell', price, size, ts, type: str(d, 'trade_type') ?? 'FILL' }, ctx, out);
  } else if (kind === 'markets_summary') {
    const market = str(d, 'symbol');
    const ts = num(d, 'created_at');
    if (market === null || ts === null) return deadLetter('markets_summary missing symbol/created_at', channel);
    const g = obj(d, 'greeks');
    const gk = (k: string): number | null => (g === null ? null : num(g, k));
    summary(
      {
        market,
        ts,
        mark: num(d, 'mark_price'),
        index: num(d, 'underlying_price'),
        oi: num(d, 'open_interest'),
        funding: num(d, 'funding_rate'),
        markIv: num(d, 'mark_iv'),
        bidIv: num(d, 'bid_iv'),
        askIv: num(d, 'ask_iv'),
        delta: gk('delta'),
        gamma: gk('gamma'),
        vega: gk('vega'),
        theta: gk('theta'),
        bid: num(d, 'bid'),
        ask: num(d, 'ask'),
        last: num(d, 'last_traded_price'),
        bidSize: num(d, 'bid_size'),
        askSize: num(d, 'ask_size'),
      },
      ctx,
      out,
    );
  } else if (kind === 'funding_data') {
    const market = str(d, 'market');
    const ts = num(d, 'created_at');
    if (market === null || ts === null) return deadLetter('funding_data missing market/created_at', channel);
    funding(market, ts, num(d, 'funding_rate'), ctx, out);
  } else return deadLetter(`unknown channel: ${channel}`, channel);
  return eventsOrUntracked(out, channel);
}

function trade(t: TradeIn, ctx: ParserContext, out: MarketEvent[]): void {
  if (t.type === 'UNWIND_TRANSFER' || t.type === 'SETTLE_MARKET') return;
  const inst = lookupInstrument(ctx, t.market, paradexInstrumentFromName);
  if (inst === null) return;
  const [symbol, ts, receivedAt, id, instrument, tradeId, side, price, size] = [
    inst.symbol,
    t.ts,
    ctx.receivedAt,
    `${VENUE}:${t.market}:${t.id}`,
    t.market,
    t.id,
    t.side,
    t.price,
    t.size,
  ];
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
        block: t.type === 'BLOCK_TRADE',
      },
    });
  } else if (inst.kind === 'perp') {
    out.push({
      type: 'perp_trade',
      event: { venue: VENUE, symbol, ts, receivedAt, id, instrument, tradeId, side, price, size, market: 'perp' },
    });
    if (t.type === 'LIQUIDATION') {
      // the taker of a liquidation fill is the liquidation order: a SELL closes a long position
      const side = t.side === 'sell' ? 'long' : 'short';
      out.push({
        type: 'liquidation',
        event: {
          venue: VENUE,
          symbol: inst.symbol,
          ts: t.ts,
          receivedAt: ctx.receivedAt,
          id: `${VENUE}:liq:${t.market}:${t.id}`,
          instrument: t.market,
          side,
          price: t.price,
          size: t.size,
        },
      });
    }
  }
}

function summary(s: SummaryIn, ctx: ParserContext, out: MarketEvent[]): void {
  const inst = lookupInstrument(ctx, s.market, paradexInstrumentFromName);
  if (inst === null) return;
  if (s.index !== null && s.index > 0) ctx.indexPrices.set(inst.symbol, s.index);
  const symbol = inst.symbol;
  const receivedAt = ctx.receivedAt;
  const id = rowId(VENUE, 'markets_summary', s.market, s.ts);
  // explicit literals, no object spread on the per-frame path
  if (inst.kind === 'option' && inst.strike !== null && inst.expiry !== null && inst.optionType !== null) {
    // volume_24h is USD notional (SBE volume_usd24h), not coins: no 24 h volume in coins.
    const q = inst.quoteCurrency;
    const book = tickerBook(
      { priceCurrency: q, bid: s.bid, ask: s.ask, bidSize: s.bidSize, askSize: s.askSize, last: s.last },
      usdPerUnit(q, s.index),
    );
    out.push({
      type: 'option_ticker',
      event: {
        venue: VENUE,
        symbol,
        ts: s.ts,
        receivedAt,
        id,
        instrument: s.market,
        strike: inst.strike,
        expiry: inst.expiry,
        optionType: inst.optionType,
        markPrice: s.mark,
        markIv: posIv(s.markIv),
        bidIv: posIv(s.bidIv),
        askIv: posIv(s.askIv),
        delta: s.delta,
        gamma: s.gamma,
        vega: s.vega,
        theta: s.theta,
        openInterest: s.oi,
        underlyingPrice: null,
        indexPrice: s.index,
        ...book,
      },
    });
  } else if (inst.kind === 'perp') {
    out.push({
      type: 'perp_stats',
      event: {
        venue: VENUE,
        symbol,
        ts: s.ts,
        receivedAt,
        id,
        instrument: s.market,
        openInterest: s.oi,
        openInterestUsd: null,
        fundingRate: s.funding,
        nextFundingTime: null,
        markPrice: s.mark,
        indexPrice: s.index,
      },
    });
  }
}

function funding(market: string, ts: number, rate: number | null, ctx: ParserContext, out: MarketEvent[]): void {
  const inst = lookupInstrument(ctx, market, paradexInstrumentFromName);
  if (inst === null || inst.kind !== 'perp') return;
  out.push({
    type: 'perp_stats',
    event: {
      venue: VENUE,
      symbol: inst.symbol,
      ts,
      receivedAt: ctx.receivedAt,
      id: rowId(VENUE, 'funding_data', market, ts),
      instrument: market,
      openInterest: null,
      openInterestUsd: null,
      fundingRate: rate,
      nextFundingTime: null,
      markPrice: null,
      indexPrice: null,
    },
  });
}
