/**
 * Venue re-aggregation: select any subset of venue rows of one snapshot, sum them (canonical venue order,
 * union of strikes), and extract levels from the sums only. The full computation is the same code with every
 * venue selected, so a filter naming all venues reproduces it exactly (bit for bit).
 *
 * Filter rules (API `exchanges`): unknown names are ignored; a filter with no known name (or no filter)
 * selects every venue; a known venue without a row (no contracts) contributes zero.
 */
import { VENUES } from '#schemas/events.ts';
import type { Venue } from '#schemas/events.ts';
import { venueOrder } from './gex.ts';
import { extractLevels } from './levels.ts';
import type { LevelsData, LevelsInclude } from './levels.ts';
import { sumProfiles } from './profile.ts';
import type { NearExpiryBlock, ScopeBlock, VenueSnapshotRow } from './snapshot-row.ts';
import { sumStrikeTables } from './strikes.ts';
import type { DealerModel } from './types.ts';

export type { ExpiryStat, NearExpiryBlock, ScopeBlock, VenueSnapshotRow } from './snapshot-row.ts';
export { buildVenueRows } from './snapshot-row.ts';

export type { AggregateDiagnostics, AggregateSnapshot, CombinedExpiry, SnapshotMeta } from './aggregate-types.ts';
import type { AggregateSnapshot, CombinedExpiry, SnapshotMeta } from './aggregate-types.ts';

/** Apply the venue-filter rules; result in canonical venue order, one row per venue. */
export function selectRows(rows: readonly VenueSnapshotRow[], filter?: readonly string[]): VenueSnapshotRow[] {
  const known = new Set<string>((filter ?? []).map((f) => f.trim().toLowerCase()).filter((f) => (VENUES as readonly string[]).includes(f)));
  const seen = new Set<Venue>();
  const out: VenueSnapshotRow[] = [];
  const sorted = [...rows].sort((a, b) => venueOrder(a.venue) - venueOrder(b.venue));
  for (const r of sorted) {
    if (seen.has(r.venue)) continue;
    if (known.size > 0 && !known.has(r.venue)) continue;
    seen.add(r.venue);
    out.push(r);
  }
  return out;
}

function sumOi(parts: readonly { strikes: readonly number[]; call_oi: readonly number[]; put_oi: readonly number[] }[]): {
  strikes: number[];
  call_oi: number[];
  put_oi: number[];
} {
  const strikes = [...new Set(parts.flatMap((p) => p.strikes))].sort((a, b) => a - b);
  const index = new Map(strikes.map((k, i) => [k, i]));
  const call = new Array<number>(strikes.length).fill(0);
  const put = new Array<number>(strikes.length).fill(0);
  for (const p of parts) {
    for (let i = 0; i < p.strikes.length; i++) {
      const j = index.get(p.strikes[i] ?? Number.NaN);
      if (j === undefined) continue;
      call[j] = (call[j] ?? 0) + (p.call_oi[i] ?? 0);
      put[j] = (put[j] ?? 0) + (p.put_oi[i] ?? 0);
    }
  }
  return { strikes, call_oi: call, put_oi: put };
}

function sumScopes(parts: readonly ScopeBlock[]): ScopeBlock {
  return { ...sumStrikeTables(parts), ...sumProfiles(parts) };
}

/** Sum already-selected rows (call selectRows first). */
export function sumVenueRows(meta: SnapshotMeta, rows: readonly VenueSnapshotRow[]): AggregateSnapshot {
  let odteExpiry: number | null = null;
  for (const r of rows)
    for (const n of r.near) if (n.expiry > meta.computed_at && (odteExpiry === null || n.expiry < odteExpiry)) odteExpiry = n.expiry;
  const odteParts: NearExpiryBlock[] = [];
  for (const r of rows) for (const n of r.near) if (n.expiry === odteExpiry) odteParts.push(n);

  const expiryKeys = [...new Set(rows.flatMap((r) => r.expiries.map((e) => e.expiry)))].sort((a, b) => a - b);
  const expiries: CombinedExpiry[] = expiryKeys.map((expiry) => {
    const parts = rows.flatMap((r) => r.expiries.filter((e) => e.expiry === expiry));
    let ivW = 0;
    let w = 0;
    let ivSum = 0;
    let n = 0;
    for (const p of parts) {
      if (p.atm_iv === null) continue;
      ivW += p.atm_iv * p.atm_weight;
      w += p.atm_weight;
      ivSum += p.atm_iv;
      n++;
    }
    return { expiry, atm_iv: w > 0 ? ivW / w : n > 0 ? ivSum / n : null, ...sumOi(parts) };
  });

  let used = 0;
  let skipped = 0;
  let dropped = 0;
  let floored = 0;
  for (const r of rows) {
    used += r.instruments_used;
    skipped += r.skipped_no_iv;
    dropped += r.dropped_expired;
    floored += r.t_floored;
  }
  return {
    meta,
    venues: rows.map((r) => r.venue),
    has_inventory: rows.some((r) => r.has_inventory),
    ...sumScopes(rows),
    odte: odteExpiry === null ? null : { expiry: odteExpiry, ...sumScopes(odteParts) },
    expiries,
    diagnostics: { instruments_used: used, skipped_no_iv: skipped, dropped_expired: dropped, t_floored: floored },
  };
}

/** Levels for a venue filter, from stored rows alone. */
export function levelsFromRows(
  meta: SnapshotMeta,
  rows: readonly VenueSnapshotRow[],
  model: DealerModel,
  filter?: readonly string[],
  include?: LevelsInclude,
): LevelsData {
  return extractLevels(sumVenueRows(meta, selectRows(rows, filter)), model, include);
}
