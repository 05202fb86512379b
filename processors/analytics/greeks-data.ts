/**
 * The `data` object of /v2/options/greeks/{greek} (and of `gex greeks --chain`): dealer exposure of one greek in
 * USD by strike and by expiry, under the positioning model that actually ran (same models and fallback as the
 * levels: dealer.ts `resolveModel`). Pure; sums run in the canonical instrument order of `prepareChain`.
 */
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import { resolveModel } from './dealer.ts';
import type { OpenInstrument } from './gex.ts';
import { venueOrder } from './gex.ts';
import { GREEK_UNITS, contractExposure } from './greek-exposure.ts';
import type { Greek } from './greek-exposure.ts';
import type { DealerModel } from './types.ts';

const DAY_MS = 86_400_000;

export interface GreekQuery {
  readonly symbol: MarketSymbol;
  /** Snapshot instant, ms UTC. */
  readonly now: number;
  readonly spot: number;
  /** Open instruments of the selected venues (prepareChain output, canonical order). */
  readonly open: readonly OpenInstrument[];
  readonly greek: Greek;
  /** Requested model; the one that runs is reported. */
  readonly model: DealerModel;
  /** Only this expiry (ms UTC) when set. */
  readonly expiry?: number | undefined;
  readonly breakdown: boolean;
}

export interface SideSums {
  readonly call: number;
  readonly put: number;
  readonly net: number;
}

export interface StrikeExposure extends SideSums {
  readonly strike: number;
}

export interface ExpiryExposure extends SideSums {
  readonly expiry: string;
  readonly dte: number;
}

export interface VenueExposure {
  readonly venue: Venue;
  readonly total: number;
  /** Net per strike, parallel to `by_strike`. */
  readonly by_strike: number[];
  /** Net per expiry, parallel to `by_expiry`. */
  readonly by_expiry: number[];
}

export interface GreekExposureData {
  readonly symbol: MarketSymbol;
  readonly greek: Greek;
  readonly unit: string;
  readonly positioning: DealerModel;
  readonly spot: number;
  readonly total: number;
  readonly call_total: number;
  readonly put_total: number;
  readonly by_strike: StrikeExposure[];
  readonly by_expiry: ExpiryExposure[];
  readonly exchange_breakdown?: VenueExposure[];
  readonly diagnostics: { readonly instruments_used: number; readonly skipped_no_iv: number };
}

/** One priced contract: its keys and its USD exposure. */
export interface ContractExposure {
  readonly venue: Venue;
  readonly expiry: number;
  readonly strike: number;
  readonly isCall: boolean;
  readonly value: number;
}

/** The model that runs for this selection (flow needs a flow symbol and one measured inventory). */
export function runModel(q: Pick<GreekQuery, 'symbol' | 'open' | 'model'>): DealerModel {
  return resolveModel(
    q.model,
    q.symbol,
    q.open.some((i) => i.hasInventory),
  );
}

/** Instruments in scope (expiry filter) with their exposure under `model`, canonical order kept. */
export function contractExposures(q: GreekQuery, model: DealerModel): ContractExposure[] {
  const out: ContractExposure[] = [];
  for (const i of q.open) {
    if (q.expiry !== undefined && i.expiry !== q.expiry) continue;
    const qty = model === 'flow' ? i.qFlow : i.qStd;
    // `+ 0` turns −0 into 0 so outputs compare equal.
    const value = contractExposure(q.greek, i, qty, q.spot) + 0;
    out.push({ venue: i.venue, expiry: i.expiry, strike: i.strike, isCall: i.type === 'call', value });
  }
  return out;
}

interface MutableSides {
  call: number;
  put: number;
}

/** Σ call / put exposure per key, keys ascending. */
export function sumBy(rows: readonly ContractExposure[], key: (r: ContractExposure) => number): Map<number, MutableSides> {
  const acc = new Map<number, MutableSides>();
  for (const r of rows) {
    const k = key(r);
    let s = acc.get(k);
    if (s === undefined) {
      s = { call: 0, put: 0 };
      acc.set(k, s);
    }
    if (r.isCall) s.call += r.value;
    else s.put += r.value;
  }
  return new Map([...acc.entries()].sort((a, b) => a[0] - b[0]));
}

export function dteDays(expiry: number, now: number): number {
  return Math.round(((expiry - now) / DAY_MS) * 1e4) / 1e4;
}

function venueBreakdown(rows: readonly ContractExposure[], strikes: readonly number[], expiries: readonly number[]): VenueExposure[] {
  const venues = [...new Set(rows.map((r) => r.venue))].sort((a, b) => venueOrder(a) - venueOrder(b));
  return venues.map((venue) => {
    const mine = rows.filter((r) => r.venue === venue);
    const byStrike = sumBy(mine, (r) => r.strike);
    const byExpiry = sumBy(mine, (r) => r.expiry);
    const net = (s: MutableSides | undefined): number => (s === undefined ? 0 : s.call + s.put);
    return {
      venue,
      total: mine.reduce((a, r) => a + r.value, 0),
      by_strike: strikes.map((k) => net(byStrike.get(k))),
      by_expiry: expiries.map((e) => net(byExpiry.get(e))),
    };
  });
}

/** The leading fields of every exposure answer. */
export function exposureHeader(
  q: Pick<GreekQuery, 'symbol' | 'greek' | 'spot'>,
  model: DealerModel,
): { symbol: MarketSymbol; greek: Greek; unit: string; positioning: DealerModel; spot: number } {
  return { symbol: q.symbol, greek: q.greek, unit: GREEK_UNITS[q.greek], positioning: model, spot: q.spot };
}

export function greekExposures(q: GreekQuery): GreekExposureData {
  const model = runModel(q);
  const rows = contractExposures(q, model);
  const byStrike = sumBy(rows, (r) => r.strike);
  const byExpiry = sumBy(rows, (r) => r.expiry);
  let callTotal = 0;
  let putTotal = 0;
  for (const r of rows) {
    if (r.isCall) callTotal += r.value;
    else putTotal += r.value;
  }
  const scoped = q.open.filter((i) => q.expiry === undefined || i.expiry === q.expiry);
  const used = scoped.filter((i) => i.sigma !== null).length;
  return {
    ...exposureHeader(q, model),
    total: callTotal + putTotal,
    call_total: callTotal,
    put_total: putTotal,
    by_strike: [...byStrike].map(([strike, s]) => ({ strike, call: s.call, put: s.put, net: s.call + s.put })),
    by_expiry: [...byExpiry].map(([e, s]) => ({
      expiry: new Date(e).toISOString(),
      dte: dteDays(e, q.now),
      call: s.call,
      put: s.put,
      net: s.call + s.put,
    })),
    ...(q.breakdown ? { exchange_breakdown: venueBreakdown(rows, [...byStrike.keys()], [...byExpiry.keys()]) } : {}),
    diagnostics: { instruments_used: used, skipped_no_iv: scoped.length - used },
  };
}
