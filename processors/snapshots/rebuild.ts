/**
 * The market state of one symbol as of an instant, rebuilt from the raw tables: per (venue, instrument) within the
 * freshness window, each field group from the newest row carrying it (newest ts, id as tie-break; ticker-merge.ts), the latest index price
 * per (venue, name) and perp mark per (venue, instrument) within the price window, and the options delisted at
 * that instant. Used on start (asOf = now) and to compute a missed tick exactly as of the tick.
 */
import type { Store } from '#clickhouse/store.ts';
import type { MarketSymbol, OptionType, Venue } from '#schemas/events.ts';
import type { ChainOptions } from './chain.ts';
import { msColumn, msParam } from '#clickhouse/epoch-ms.ts';
import { MarketState, quoteOf } from './state.ts';

interface TickerRow {
  venue: Venue;
  instrument: string;
  ts_ms: number;
  strike: number;
  expiry_ms: number;
  option_type: OptionType;
  /** Per field group (ticker-merge.ts): the newest row carrying it, its time (null: no such row in the window). */
  pricing_ts: number | null;
  pricing: [
    number | null,
    number | null,
    number | null,
    number | null,
    number | null,
    number | null,
    number | null,
    number | null,
    number | null,
  ];
  oi_ts: number | null;
  oi_value: number | null;
  book_ts: number | null;
  book: [number | null, number | null, number | null, number | null, number | null, number | null];
  index_ts: number | null;
  index_value: number | null;
}

const PRICING = ['mark_iv', 'underlying_price', 'mark_price', 'bid_iv', 'ask_iv', 'delta', 'gamma', 'vega', 'theta'];
const BOOK = ['bid_price_usd', 'ask_price_usd', 'bid_size', 'ask_size', 'last_price_usd', 'volume24h'];
const carries = (cols: readonly string[]): string => `(${cols.map((c) => `${c} IS NOT NULL`).join(' OR ')})`;
/** The group's time, or null when no row of the window carries it. */
const groupTs = (cond: string, alias: string): string =>
  `if(countIf(${cond}) = 0, NULL, toFloat64(toUnixTimestamp64Milli(maxIf(ts, ${cond})))) AS ${alias}`;
/** The newest carrying row's values as one tuple (a tuple is not Nullable: a NULL field of that row stays NULL). */
const groupValues = (cols: readonly string[], alias: string): string =>
  `argMaxIf(tuple(${cols.join(', ')}), (ts, id), ${carries(cols)}) AS ${alias}`;

// Per (venue, instrument), each field group from the newest row that carries it (ticker-merge.ts), as the live
// state merges them. No alias equals a column name: ClickHouse would substitute the alias for the column elsewhere.
const TICKERS = `SELECT venue, instrument, ${msColumn('max(ts)', 'ts_ms')}, argMax(strike, (ts, id)) AS strike,
  ${msColumn('argMax(expiry, (ts, id))', 'expiry_ms')}, argMax(option_type, (ts, id)) AS option_type,
  ${groupTs(carries(PRICING), 'pricing_ts')}, ${groupValues(PRICING, 'pricing')},
  ${groupTs('open_interest IS NOT NULL', 'oi_ts')}, argMaxIf(tuple(open_interest), (ts, id), open_interest IS NOT NULL).1 AS oi_value,
  ${groupTs(carries(BOOK), 'book_ts')}, ${groupValues(BOOK, 'book')},
  ${groupTs('index_price IS NOT NULL', 'index_ts')}, argMaxIf(tuple(index_price), (ts, id), index_price IS NOT NULL).1 AS index_value
FROM option_tickers
WHERE symbol = {symbol:String} AND ts >= ${msParam('from')} AND ts <= ${msParam('asOf')} AND expiry > ${msParam('asOf')}
GROUP BY venue, instrument`;

const INDEX = `SELECT venue, name, ${msColumn('max(ts)', 'ts_ms')}, argMax(value, (ts, id)) AS value
FROM index_prices
WHERE symbol = {symbol:String} AND kind = 'index' AND ts >= ${msParam('from')} AND ts <= ${msParam('asOf')}
GROUP BY venue, name`;

const PERPS = `SELECT venue, instrument AS name, ${msColumn('max(ts)', 'ts_ms')}, argMax(mark_price, (ts, id)) AS value
FROM perp_stats
WHERE symbol = {symbol:String} AND mark_price IS NOT NULL AND ts >= ${msParam('from')} AND ts <= ${msParam('asOf')}
GROUP BY venue, name`;

const INACTIVE = `SELECT venue, instrument, ${msColumn('max(ts)', 'ts_ms')}, argMax(active, ts) AS active
FROM instruments
WHERE symbol = {symbol:String} AND kind = 'option' AND ts <= ${msParam('asOf')}
GROUP BY venue, instrument
HAVING active = false`;

interface PriceRow {
  venue: Venue;
  name: string;
  ts_ms: number;
  value: number;
}

/** Fill `state` (or a new one) with one symbol's stored state as of `asOfMs`. */
export async function loadStateAsOf(
  store: Store,
  symbol: MarketSymbol,
  asOfMs: number,
  o: ChainOptions,
  state: MarketState = new MarketState(),
): Promise<MarketState> {
  const asOf = Math.trunc(asOfMs);
  // Sequential: the embedded store has one session.
  const tickers = await store.query<TickerRow>(TICKERS, { symbol, from: asOf - o.tickerFreshnessMs, asOf });
  const index = await store.query<PriceRow>(INDEX, { symbol, from: asOf - o.priceFreshnessMs, asOf });
  const perps = await store.query<PriceRow>(PERPS, { symbol, from: asOf - o.priceFreshnessMs, asOf });
  const inactive = await store.query<{ venue: Venue; instrument: string; ts_ms: number }>(INACTIVE, { symbol, asOf });
  for (const t of tickers) {
    const [markIv, underlyingPrice, markPrice, bidIv, askIv, delta, gamma, vega, theta] = t.pricing;
    const [bidPriceUsd, askPriceUsd, bidSize, askSize, lastPriceUsd, volume24h] = t.book;
    const ts = (x: number | null): number | null => (x === null ? null : Number(x));
    state.setTicker(symbol, {
      venue: t.venue,
      instrument: t.instrument,
      ts: t.ts_ms,
      strike: t.strike,
      expiry: t.expiry_ms,
      type: t.option_type,
      markIv,
      openInterest: t.oi_value,
      underlyingPrice,
      indexPrice: t.index_value,
      quote: quoteOf({
        markPrice,
        bidIv,
        askIv,
        delta,
        gamma,
        vega,
        theta,
        bidPriceUsd,
        askPriceUsd,
        lastPriceUsd,
        bidSize,
        askSize,
        volume24h,
      }),
      groupTimes: { pricing: ts(t.pricing_ts), oi: ts(t.oi_ts), book: ts(t.book_ts), index: ts(t.index_ts) },
    });
  }
  for (const p of index) state.putIndex(symbol, { venue: p.venue, name: p.name, ts: p.ts_ms, value: p.value });
  for (const p of perps) state.putPerp(symbol, { venue: p.venue, name: p.name, ts: p.ts_ms, value: p.value });
  for (const i of inactive) state.putInstrumentStatus(symbol, i.venue, i.instrument, i.ts_ms, false);
  return state;
}
