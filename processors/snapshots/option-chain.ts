/**
 * The consolidated option chain of one tick (option_chain_snapshots, migration 059): one row per instrument the
 * GEX engine used at the tick (chain.ts: fresh tickers of listed, unexpired contracts), with the tick's spot and
 * perp price, the instrument's forward and T, the venue's book, IVs and OI, the dealer inventory when measured,
 * and four greeks per coin with their source: the venue's as published (`venue`), else Black-76 with r = 0 on the
 * forward at the mark IV (`computed`), else null (`none`: no usable mark IV).
 * Units guard: venues publish greeks in their own units (per 1 % or per 1.0 vol, per day or per year, per coin or
 * per contract, USD or coin). A published greek is kept only when it is within a factor of 3 of the Black-76 value
 * in the project's units (same sign); otherwise the computed value is stored (source `computed`). A unit mismatch is
 * a factor of 100, 365 or a price level, far outside that band; model differences (the venue's own IV, forward or
 * clock) stay well inside it. When no Black-76 value exists (no mark IV) the published value is kept unchecked.
 */
import type { MarketSymbol, OptionType } from '#schemas/events.ts';
import { delta, gamma, pricingT, theta, vega, yearFraction } from '../analytics/black76.ts';
import type { ChainSnapshot } from '../analytics/types.ts';
import type { ChainQuoteRow } from '../analytics/chain-quotes.ts';
import type { NamedInstrument } from './chain.ts';

export const CHAIN_GREEKS = ['delta', 'gamma', 'vega', 'theta'] as const;
export type ChainGreek = (typeof CHAIN_GREEKS)[number];
export type GreekSource = 'none' | 'venue' | 'computed';

/** A stored row (times epoch ms): the fields the consolidation reads (ChainQuoteRow) plus the tick's context. */
export interface OptionChainRow extends ChainQuoteRow {
  readonly symbol: MarketSymbol;
  readonly computed_at: number;
  readonly spot: number;
  readonly perp_price: number | null;
  readonly delta_source: GreekSource;
  readonly gamma_source: GreekSource;
  readonly vega_source: GreekSource;
  readonly theta_source: GreekSource;
  readonly dealer_inventory: number | null;
  readonly ticker_ts: number;
}

type Formula = (type: OptionType, f: number, k: number, sigma: number, t: number) => number;

const FORMULA: Readonly<Record<ChainGreek, Formula>> = {
  delta,
  gamma: (_type, f, k, sigma, t) => gamma(f, k, sigma, t),
  vega: (_type, f, k, sigma, t) => vega(f, k, sigma, t),
  theta: (_type, f, k, sigma, t) => theta(f, k, sigma, t),
};

const finite = (x: number | null | undefined): number | null => (x !== null && x !== undefined && Number.isFinite(x) ? x : null);
const positive = (x: number | null | undefined): number | null => {
  const v = finite(x);
  return v !== null && v > 0 ? v : null;
};

interface GreekValue {
  readonly value: number | null;
  readonly source: GreekSource;
}

/** Largest accepted ratio between a published greek and the Black-76 one (either way). */
export const UNIT_GUARD_RATIO = 3;

/** Same units: same sign and within UNIT_GUARD_RATIO of each other (both zero counts as agreeing). */
export function sameUnits(published: number, computed: number): boolean {
  if (computed === 0) return published === 0;
  const ratio = published / computed;
  return ratio >= 1 / UNIT_GUARD_RATIO && ratio <= UNIT_GUARD_RATIO;
}

function greekOf(name: ChainGreek, i: NamedInstrument, t: number | null): GreekValue {
  const published = finite(i.ticker.quote?.[name]);
  const sigma = positive(i.markIv);
  const computed = sigma === null || t === null ? null : FORMULA[name](i.type, i.forward, i.strike, sigma, t);
  if (published !== null && (computed === null || sameUnits(published, computed))) return { value: published, source: 'venue' };
  return computed === null ? { value: null, source: 'none' } : { value: computed, source: 'computed' };
}

export function chainRow(chain: ChainSnapshot, i: NamedInstrument): OptionChainRow {
  const tick = chain.now;
  const t = pricingT(i.expiry, tick);
  const q = i.ticker.quote;
  const g = {
    delta: greekOf('delta', i, t),
    gamma: greekOf('gamma', i, t),
    vega: greekOf('vega', i, t),
    theta: greekOf('theta', i, t),
  };
  return {
    symbol: chain.symbol,
    computed_at: tick,
    spot: chain.spot,
    perp_price: chain.perpPrice,
    venue: i.venue,
    instrument: i.instrument,
    expiry: i.expiry,
    strike: i.strike,
    option_type: i.type,
    t_years: yearFraction(i.expiry, tick),
    forward: i.forward,
    bid_price_usd: positive(q?.bidPriceUsd),
    ask_price_usd: positive(q?.askPriceUsd),
    bid_size: finite(q?.bidSize),
    ask_size: finite(q?.askSize),
    mark_price_usd: finite(q?.markPrice),
    last_price_usd: positive(q?.lastPriceUsd),
    mark_iv: positive(i.markIv),
    bid_iv: positive(q?.bidIv),
    ask_iv: positive(q?.askIv),
    delta: g.delta.value,
    gamma: g.gamma.value,
    vega: g.vega.value,
    theta: g.theta.value,
    delta_source: g.delta.source,
    gamma_source: g.gamma.source,
    vega_source: g.vega.source,
    theta_source: g.theta.source,
    open_interest: i.openInterest,
    volume_24h: finite(q?.volume24h),
    dealer_inventory: i.dealerInventory ?? null,
    ticker_ts: i.ticker.ts,
  };
}

/** Every instrument of the tick's chain, in (venue, instrument) order (the table's sort order within a tick). */
export function chainRows(chain: ChainSnapshot, instruments: readonly NamedInstrument[]): OptionChainRow[] {
  const rows = instruments.map((i) => chainRow(chain, i));
  return rows.sort((a, b) =>
    a.venue < b.venue ? -1 : a.venue > b.venue ? 1 : a.instrument < b.instrument ? -1 : a.instrument > b.instrument ? 1 : 0,
  );
}
