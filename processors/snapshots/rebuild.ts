/**
 * The market state of one symbol as of an instant, rebuilt from the raw tables: the latest ticker per (venue,
 * instrument) within the freshness window (LIMIT 1 BY, newest ts, id as tie-break), the latest index price
 * per (venue, name) and perp mark per (venue, instrument) within the price window, and the options delisted at
 * that instant. Used on start (asOf = now) and to compute a missed tick exactly as of the tick.
 */
import type { Store } from '../../clickhouse/store.ts';
import type { MarketSymbol, OptionType, Venue } from '../../schemas/events.ts';
import type { ChainOptions } from './chain.ts';
import { msColumn, msParam } from '../../clickhouse/epoch-ms.ts';
import { MarketState, quoteOf } from './state.ts';

interface TickerRow {
  venue: Venue;
  instrument: string;
  ts_ms: number;
  strike: number;
  expiry_ms: number;
  option_type: OptionType;
  mark_iv: number | null;
  open_interest: number | null;
  underlying_price: number | null;
  index_price: number | null;
  mark_price: number | null;
  bid_iv: number | null;
  ask_iv: number | null;
  delta: number | null;
  gamma: number | null;
  vega: number | null;
  theta: number | null;
  bid_price_usd: number | null;
  ask_price_usd: number | null;
  last_price_usd: number | null;
  bid_size: number | null;
  ask_size: number | null;
  volume24h: number | null;
}

// Converted columns are aliased *_ms: an alias equal to a column name would replace it in WHERE / ORDER BY.
const TICKERS = `SELECT venue, instrument, ${msColumn('ts', 'ts_ms')}, strike, ${msColumn('expiry', 'expiry_ms')}, option_type,
  mark_iv, open_interest, underlying_price, index_price, mark_price, bid_iv, ask_iv, delta, gamma, vega, theta,
  bid_price_usd, ask_price_usd, last_price_usd, bid_size, ask_size, volume24h
FROM option_tickers
WHERE symbol = {symbol:String} AND ts >= ${msParam('from')} AND ts <= ${msParam('asOf')} AND expiry > ${msParam('asOf')}
ORDER BY venue, instrument, ts DESC, id DESC
LIMIT 1 BY venue, instrument`;

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
    state.putTicker(symbol, {
      venue: t.venue,
      instrument: t.instrument,
      ts: t.ts_ms,
      strike: t.strike,
      expiry: t.expiry_ms,
      type: t.option_type,
      markIv: t.mark_iv,
      openInterest: t.open_interest,
      underlyingPrice: t.underlying_price,
      indexPrice: t.index_price,
      quote: quoteOf({
        markPrice: t.mark_price,
        bidIv: t.bid_iv,
        askIv: t.ask_iv,
        delta: t.delta,
        gamma: t.gamma,
        vega: t.vega,
        theta: t.theta,
        bidPriceUsd: t.bid_price_usd,
        askPriceUsd: t.ask_price_usd,
        lastPriceUsd: t.last_price_usd,
        bidSize: t.bid_size,
        askSize: t.ask_size,
        volume24h: t.volume24h,
      }),
    });
  }
  for (const p of index) state.putIndex(symbol, { venue: p.venue, name: p.name, ts: p.ts_ms, value: p.value });
  for (const p of perps) state.putPerp(symbol, { venue: p.venue, name: p.name, ts: p.ts_ms, value: p.value });
  for (const i of inactive) state.putInstrumentStatus(symbol, i.venue, i.instrument, i.ts_ms, false);
  return state;
}
