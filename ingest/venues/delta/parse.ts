/**
 * Delta Exchange public market-data frames (the compact channels of the 2026-04 public socket) -> events:
 * `trades` (`sy,p,s,r,t`: contracts × contract_value coins, `r` = buyer role: `t` taker buy / `m` taker sell,
 * µs times, no trade id -> hash), `ticker` (chain or symbol; `d[]` rows with mark `m`, greeks `g`, quotes IV
 * `qiv` = [ask, bid, mark] fractions, `oi[0]` contracts; `sp` spot -> index), `funding_rate` (`fr` percent),
 * `mark_price` (`MARK:<sym>`). Every derivative needs the listing (contract_value).
 */
import {
  deadLetter,
  eventsOrUntracked,
  hash32,
  ignored,
  isObj,
  mul,
  num,
  parseJson,
  positive,
  rowId,
  str,
  symbolForBase,
} from '../../connector/parse-helpers.ts';
import type { Obj } from '../../connector/parse-helpers.ts';
import { JsonScan, KeySet } from '../../connector/json-scan.ts';
import type { Instrument, MarketEvent } from '#schemas/events.ts';
import { tickerBook, usdPerUnit } from '../../connector/ticker-book.ts';
import type { ParseResult, ParserContext } from '../../connector/types.ts';

const usToMs = (us: number): number => Math.floor(us / 1000);

type Out = MarketEvent[];

/**
 * A frame -> its events. A `trades` frame (one trade, an object of scalars: most of a busy socket's frames) is read in
 * one pass without JSON.parse (`scanTradeFrame`); every other frame, and any the scan does not handle, takes
 * `parseDeltaFrameJson`. Both give the same result for every frame.
 */
export function parseDeltaFrame(frame: string, ctx: ParserContext): ParseResult {
  const trade = scanTradeFrame(frame);
  if (trade === null) return parseDeltaFrameJson(frame, ctx);
  const out: Out = [];
  const err = trades(trade, ctx, out);
  return err !== null ? deadLetter(err, 'trades') : eventsOrUntracked(out, 'trades');
}

/** The members of a `trades` frame that `trades` reads (with `type`). */
const TRADE_NAMES = ['type', 'sy', 'p', 's', 'r', 't', 'ts'] as const;
const TRADE_KEYS = new KeySet(TRADE_NAMES);
/** How a `trades` frame starts in the venue's layout; any other start is left to JSON.parse without a scan. */
const TRADES_HEAD = '{"type":"trades",';
const scan = new JsonScan();

/**
 * A `trades` frame as the object `trades` reads (members as JSON.parse gives them, a repeated member's last value
 * wins), or null for any other frame and any input the scan does not handle (nested values, escapes, invalid JSON).
 */
function scanTradeFrame(frame: string): Obj | null {
  if (!frame.startsWith(TRADES_HEAD) || !scan.begin(frame) || !scan.values(TRADE_KEYS) || !scan.end()) return null;
  const [type, sy, p, s, r, t, ts] = TRADE_KEYS.values;
  return type === 'trades' ? { type, sy, p, s, r, t, ts } : null;
}

/** The JSON.parse path of `parseDeltaFrame`: every frame. */
export function parseDeltaFrameJson(frame: string, ctx: ParserContext): ParseResult {
  const msg = parseJson(frame);
  if (msg === undefined) return deadLetter('malformed json');
  if (!isObj(msg)) return deadLetter('frame is not a JSON object');
  const type = str(msg, 'type');
  if (type === null) return deadLetter('frame without type');
  switch (type) {
    case 'heartbeat':
      return ignored('heartbeat');
    case 'pong':
      return ignored('pong');
    case 'subscriptions': {
      const errs = Array.isArray(msg['channels']) ? msg['channels'].filter((c) => isObj(c) && typeof c['error'] === 'string') : [];
      return errs.length > 0 ? ignored('venue_error', JSON.stringify(errs)) : ignored('ack', 'subscriptions');
    }
    case 'error':
      return ignored('venue_error', str(msg, 'message') ?? JSON.stringify(msg));
    default:
  }
  const handler = HANDLERS[type];
  if (handler === undefined) return deadLetter(`unknown channel: ${type}`, type);
  const out: Out = [];
  const err = handler(msg, ctx, out);
  return err !== null ? deadLetter(err, type) : eventsOrUntracked(out, type);
}

const HANDLERS: Readonly<Record<string, (m: Obj, ctx: ParserContext, out: Out) => string | null>> = {
  trades,
  ticker,
  funding_rate: fundingRate,
  mark_price: markPrice,
};

/** Base coin of a Delta symbol: `C-BTC-90000-310125`, `BTCUSD`, `BTCUSDT`, `BTC-310326`. */
function baseOf(sy: string): string {
  const p = sy.split('-');
  if (p.length === 4) return p[1] ?? '';
  if (p.length === 2) return p[0] ?? '';
  return sy.replace(/(USDT|USDC|USD)$/, '');
}

/** Listed instrument; null + no error when untracked; error when a tracked symbol is missing from the listing. */
function listed(sy: string, ctx: ParserContext): { inst: Instrument | null; error: string | null } {
  const inst = ctx.instruments.get(sy);
  if (inst !== undefined) return { inst, error: null };
  return { inst: null, error: symbolForBase(baseOf(sy)) === null ? null : `instrument not in listing: ${sy}` };
}

function trades(m: Obj, ctx: ParserContext, out: Out): string | null {
  const sy = str(m, 'sy');
  const p = num(m, 'p');
  const s = num(m, 's');
  const r = str(m, 'r');
  const t = num(m, 't') ?? num(m, 'ts');
  if (sy === null || p === null || s === null || t === null || (r !== 'm' && r !== 't')) return 'trade missing sy/p/s/r/t';
  const { inst, error } = listed(sy, ctx);
  if (inst === null) return error;
  const side = r === 't' ? 'buy' : 'sell';
  const us = String(t);
  const tid = `${us}:${hash32(`${sy}|${us}|${p}|${s}|${r}`)}`;
  const size = mul(s, inst.contractSize);
  const venue = ctx.venue;
  const symbol = inst.symbol;
  const ts = usToMs(t);
  const receivedAt = ctx.receivedAt;
  const id = `${venue}:${sy}:${tid}`;
  // explicit literals, no object spread (slow on Node 20)
  if (inst.kind === 'option' && inst.strike !== null && inst.expiry !== null && inst.optionType !== null) {
    out.push({
      type: 'option_trade',
      event: {
        venue,
        symbol,
        ts,
        receivedAt,
        id,
        instrument: sy,
        tradeId: tid,
        side,
        price: p,
        size,
        strike: inst.strike,
        expiry: inst.expiry,
        optionType: inst.optionType,
        priceCurrency: 'USD',
        priceUsd: p,
        premiumUsd: mul(p, size),
        iv: null,
        indexPrice: null,
        underlyingPrice: null,
        block: false,
      },
    });
  } else if (inst.kind === 'perp')
    out.push({
      type: 'perp_trade',
      event: { venue, symbol, ts, receivedAt, id, instrument: sy, tradeId: tid, side, price: p, size, market: 'perp' },
    });
  return null;
}

function at(a: unknown, i: number): number | null {
  if (!Array.isArray(a)) return null;
  const v: unknown = a[i];
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

const pos = (x: number | null): number | null => (x !== null && x > 0 ? x : null);

function ticker(m: Obj, ctx: ParserContext, out: Out): string | null {
  const sy = str(m, 'sy');
  const tsUs = num(m, 'ts');
  const rows = m['d'];
  if (sy === null || tsUs === null || !Array.isArray(rows)) return 'ticker missing sy/ts/d';
  const ts = usToMs(tsUs);
  const spot = positive(m, 'sp');
  const baseSymbol = symbolForBase(baseOf(sy));
  if (baseSymbol === null) return null;
  if (spot !== null) {
    ctx.indexPrices.set(baseSymbol, spot);
    const name = `${baseOf(sy)}USD`;
    out.push({
      type: 'index',
      event: {
        venue: ctx.venue,
        symbol: baseSymbol,
        ts,
        receivedAt: ctx.receivedAt,
        id: rowId(ctx.venue, 'index', name, ts),
        kind: 'index',
        name,
        value: spot,
      },
    });
  }
  for (const d of rows) {
    if (!isObj(d)) return 'ticker row is not an object';
    const s = str(d, 's');
    if (s === null) return 'ticker row without s';
    const { inst, error } = listed(s, ctx);
    if (inst === null) {
      if (error !== null) return error;
      continue;
    }
    const oiCoins = at(d['oi'], 0) === null ? null : mul(at(d['oi'], 0) ?? 0, inst.contractSize);
    const venue = ctx.venue;
    const symbol = inst.symbol;
    const receivedAt = ctx.receivedAt;
    const id = rowId(venue, 'ticker', s, ts);
    // explicit literals, no object spread on the per-row path
    if (inst.kind === 'option' && inst.strike !== null && inst.expiry !== null && inst.optionType !== null) {
      const g = d['g'];
      // q = [best_ask, ask_size, best_bid, bid_size, impact_mid]: USD prices, sizes in contracts; ohlc[3] = last trade
      // (close of the 24 h window). `to` (turnover) is USD notional, not coins: no 24 h volume in coins.
      const quote = d['q'];
      const contracts = (i: number): number | null => {
        const v = at(quote, i);
        return v === null ? null : mul(v, inst.contractSize);
      };
      const book = tickerBook(
        {
          priceCurrency: inst.quoteCurrency,
          bid: at(quote, 2),
          ask: at(quote, 0),
          bidSize: contracts(3),
          askSize: contracts(1),
          last: at(d['ohlc'], 3),
        },
        usdPerUnit(inst.quoteCurrency, spot),
      );
      out.push({
        type: 'option_ticker',
        event: {
          venue,
          symbol,
          ts,
          receivedAt,
          id,
          instrument: s,
          strike: inst.strike,
          expiry: inst.expiry,
          optionType: inst.optionType,
          markPrice: num(d, 'm'),
          markIv: pos(at(d['qiv'], 2)),
          bidIv: pos(at(d['qiv'], 1)),
          askIv: pos(at(d['qiv'], 0)),
          delta: at(g, 0),
          gamma: at(g, 1),
          vega: at(g, 4),
          theta: at(g, 3),
          openInterest: oiCoins,
          underlyingPrice: null,
          indexPrice: spot,
          ...book,
        },
      });
    } else if (inst.kind === 'perp') {
      out.push({
        type: 'perp_stats',
        event: {
          venue,
          symbol,
          ts,
          receivedAt,
          id,
          instrument: s,
          openInterest: oiCoins,
          openInterestUsd: null,
          fundingRate: null,
          nextFundingTime: null,
          markPrice: num(d, 'm'),
          indexPrice: spot,
        },
      });
    }
  }
  return null;
}

function fundingRate(m: Obj, ctx: ParserContext, out: Out): string | null {
  const sy = str(m, 'sy');
  const fr = num(m, 'fr');
  const tsUs = num(m, 'ts');
  if (sy === null || fr === null || tsUs === null) return 'funding_rate missing sy/fr/ts';
  const { inst, error } = listed(sy, ctx);
  if (inst === null || inst.kind !== 'perp') return error;
  const ts = usToMs(tsUs);
  const nfr = num(m, 'nfr');
  out.push({
    type: 'perp_stats',
    event: {
      venue: ctx.venue,
      symbol: inst.symbol,
      ts,
      receivedAt: ctx.receivedAt,
      id: rowId(ctx.venue, 'funding_rate', sy, ts),
      instrument: sy,
      openInterest: null,
      openInterestUsd: null,
      fundingRate: mul(fr, 0.01),
      nextFundingTime: nfr !== null && nfr > 1e14 ? usToMs(nfr) : null,
      markPrice: null,
      indexPrice: null,
    },
  });
  return null;
}

function markPrice(m: Obj, ctx: ParserContext, out: Out): string | null {
  const raw = str(m, 'sy');
  const p = num(m, 'p');
  const tsUs = num(m, 'ts');
  if (raw === null || p === null || tsUs === null) return 'mark_price missing sy/p/ts';
  const sy = raw.startsWith('MARK:') ? raw.slice(5) : raw;
  const { inst, error } = listed(sy, ctx);
  if (inst === null || inst.kind !== 'perp') return error;
  const ts = usToMs(tsUs);
  out.push({
    type: 'perp_stats',
    event: {
      venue: ctx.venue,
      symbol: inst.symbol,
      ts,
      receivedAt: ctx.receivedAt,
      id: rowId(ctx.venue, 'mark_price', sy, ts),
      instrument: sy,
      openInterest: null,
      openInterestUsd: null,
      fundingRate: null,
      nextFundingTime: null,
      markPrice: p,
      indexPrice: null,
    },
  });
  return null;
}
