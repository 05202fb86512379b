/**
 * Greek-exposure surfaces (pure):
 * - per-expiry curves over strikes (`/v2/options/greeks/surfaces/{greek}`), optional per-venue net curves;
 * - a strike × days-to-expiry grid of one greek's net exposure or of mark IV (`/v2/options/greeks/3d/surface`),
 *   rows = expiries ascending, columns = the union of strikes ascending, null where no contract is listed.
 * Exposures are those of greeks-data.ts (same units, model and fallback).
 */
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import type { OpenInstrument } from './gex.ts';
import { venueOrder } from './gex.ts';
import { GREEK_UNITS } from './greek-exposure.ts';
import type { Greek } from './greek-exposure.ts';
import { contractExposures, dteDays, exposureHeader, runModel, sumBy } from './greeks-data.ts';
import type { ContractExposure, GreekQuery } from './greeks-data.ts';
import type { DealerModel } from './types.ts';

export interface ExpiryCurve {
  readonly expiry: string;
  readonly dte: number;
  readonly strikes: number[];
  readonly call: number[];
  readonly put: number[];
  readonly net: number[];
  /** With include=exchange_breakdown: per venue, net parallel to `strikes`. */
  readonly by_venue?: { readonly venue: Venue; readonly net: number[] }[];
}

export interface GreekSurfacesData {
  readonly symbol: MarketSymbol;
  readonly greek: Greek;
  readonly unit: string;
  readonly positioning: DealerModel;
  readonly spot: number;
  readonly expiries: ExpiryCurve[];
}

function curve(rows: readonly ContractExposure[], expiry: number, now: number, breakdown: boolean): ExpiryCurve {
  const byStrike = sumBy(rows, (r) => r.strike);
  const strikes = [...byStrike.keys()];
  const sides = [...byStrike.values()];
  const out: ExpiryCurve = {
    expiry: new Date(expiry).toISOString(),
    dte: dteDays(expiry, now),
    strikes,
    call: sides.map((s) => s.call),
    put: sides.map((s) => s.put),
    net: sides.map((s) => s.call + s.put),
  };
  if (!breakdown) return out;
  const venues = [...new Set(rows.map((r) => r.venue))].sort((a, b) => venueOrder(a) - venueOrder(b));
  const byVenue = venues.map((venue) => {
    const v = sumBy(
      rows.filter((r) => r.venue === venue),
      (r) => r.strike,
    );
    return {
      venue,
      net: strikes.map((k) => {
        const s = v.get(k);
        return s === undefined ? 0 : s.call + s.put;
      }),
    };
  });
  return { ...out, by_venue: byVenue };
}

function groupByExpiry<T extends { readonly expiry: number }>(rows: readonly T[]): Map<number, T[]> {
  const m = new Map<number, T[]>();
  for (const r of rows) {
    const list = m.get(r.expiry);
    if (list === undefined) m.set(r.expiry, [r]);
    else list.push(r);
  }
  return new Map([...m.entries()].sort((a, b) => a[0] - b[0]));
}

export function greekSurfaces(q: GreekQuery): GreekSurfacesData {
  const model = runModel(q);
  const groups = groupByExpiry(contractExposures(q, model));
  return {
    ...exposureHeader(q, model),
    expiries: [...groups].map(([e, rows]) => curve(rows, e, q.now, q.breakdown)),
  };
}

export type SurfaceMetric = Greek | 'iv';

export interface Surface3dData {
  readonly symbol: MarketSymbol;
  readonly metric: SurfaceMetric;
  readonly unit: string;
  /** Model that ran; null for `iv`. */
  readonly positioning: DealerModel | null;
  readonly spot: number;
  readonly strikes: number[];
  readonly expiries: string[];
  readonly dte: number[];
  /** values[i][j]: expiry i, strike j; null where no contract (or, for IV, no valid mark IV) is listed. */
  readonly values: (number | null)[][];
}

function grid<T extends { readonly expiry: number; readonly strike: number }>(
  rows: readonly T[],
  cell: (list: readonly T[]) => number | null,
): { strikes: number[]; expiries: number[]; values: (number | null)[][] } {
  const strikes = [...new Set(rows.map((r) => r.strike))].sort((a, b) => a - b);
  const groups = groupByExpiry(rows);
  const values = [...groups.values()].map((list) => {
    const at = new Map<number, T[]>();
    for (const r of list) at.set(r.strike, [...(at.get(r.strike) ?? []), r]);
    return strikes.map((k) => {
      const c = at.get(k);
      return c === undefined ? null : cell(c);
    });
  });
  return { strikes, expiries: [...groups.keys()], values };
}

/** Mean mark IV (fraction) of the contracts with a valid IV in a cell (calls, puts, every venue alike). */
function meanIv(list: readonly OpenInstrument[]): number | null {
  const ivs = list.flatMap((i) => (i.sigma === null ? [] : [i.sigma]));
  return ivs.length === 0 ? null : ivs.reduce((a, b) => a + b, 0) / ivs.length;
}

export function surface3d(q: Omit<GreekQuery, 'greek'> & { readonly metric: SurfaceMetric }): Surface3dData {
  const meta = (expiries: number[]): { expiries: string[]; dte: number[] } => ({
    expiries: expiries.map((e) => new Date(e).toISOString()),
    dte: expiries.map((e) => dteDays(e, q.now)),
  });
  if (q.metric === 'iv') {
    const g = grid(q.expiry === undefined ? q.open : q.open.filter((i) => i.expiry === q.expiry), meanIv);
    return {
      symbol: q.symbol,
      metric: 'iv',
      unit: 'fraction',
      positioning: null,
      spot: q.spot,
      strikes: g.strikes,
      ...meta(g.expiries),
      values: g.values,
    };
  }
  const gq: GreekQuery = { ...q, greek: q.metric };
  const model = runModel(gq);
  const g = grid(contractExposures(gq, model), (list) => list.reduce((a, r) => a + r.value, 0));
  return {
    symbol: q.symbol,
    metric: q.metric,
    unit: GREEK_UNITS[q.metric],
    positioning: model,
    spot: q.spot,
    strikes: g.strikes,
    ...meta(g.expiries),
    values: g.values,
  };
}
