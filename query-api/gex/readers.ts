/**
 * Readers behind /v2/gex/gamma-flow, /v2/gex/max-pain and /v2/gex/strike-expiry-heatmap.
 * Max pain and the heatmap read one stored snapshot (latest, or at/before `asOfMs`) and re-aggregate the venue
 * subset; the gamma-flow series reads the gamma_flow table.
 */
import type { Store } from '#clickhouse/store.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { selectRows, sumVenueRows } from '#processors/analytics/aggregate.ts';
import { maxPainByExpiry } from '#processors/analytics/levels.ts';
import { resolveModel } from '#processors/analytics/dealer.ts';
import type { MaxPain } from '#processors/analytics/max-pain.ts';
import type { DealerModel } from '#processors/analytics/types.ts';
import { latestSnapshot, snapshotAsOf } from './as-of.ts';
import type { StoredSnapshot } from './as-of.ts';
import type { StoredSnapshotRow } from '#processors/snapshots/snapshot-record.ts';
import { gammaFlowRange } from './snapshot-point-reads.ts';

/** Default gamma-flow window when `fromMs` is absent. */
export const GAMMA_FLOW_DEFAULT_WINDOW_MS = 24 * 3600 * 1000;

export interface GammaFlowSeriesPoint {
  /** ms UTC */
  readonly t: number;
  readonly spot: number;
  readonly pct_change: number;
  readonly net_gex: number;
  readonly increment: number;
  /** Running sum of the increments inside the returned window. */
  readonly cumulative: number;
  readonly positioning: DealerModel;
}

export interface GammaFlowSeries {
  readonly symbol: MarketSymbol;
  readonly model: DealerModel;
  /** Model that ran at the last point (flow falls back to std for SOL/HYPE). */
  readonly positioning: DealerModel;
  readonly from: number;
  readonly to: number;
  readonly points: readonly GammaFlowSeriesPoint[];
}

/**
 * Points with from ≤ t ≤ to, to = min(toMs, asOfMs) (never after as_of; default now), from default to − 24 h.
 * `cumulative` restarts at the window start (the stored all-time running sum is in gamma_flow.cumulative).
 */
export async function gammaFlowSeries(
  store: Store,
  q: { symbol: MarketSymbol; model: DealerModel; fromMs?: number; toMs?: number; asOfMs?: number; nowMs?: number },
): Promise<GammaFlowSeries> {
  const to = Math.min(q.toMs ?? Number.POSITIVE_INFINITY, q.asOfMs ?? Number.POSITIVE_INFINITY, q.nowMs ?? Date.now());
  const from = q.fromMs ?? to - GAMMA_FLOW_DEFAULT_WINDOW_MS;
  const rows = from <= to ? await gammaFlowRange(store, q.symbol, q.model, from, to) : [];
  let cum = 0;
  const points = rows.map((r) => {
    cum += r.increment;
    return {
      t: r.computed_at,
      spot: r.spot,
      pct_change: r.pct_change,
      net_gex: r.net_gex,
      increment: r.increment,
      cumulative: cum,
      positioning: r.positioning,
    };
  });
  const last = points[points.length - 1];
  return { symbol: q.symbol, model: q.model, positioning: last?.positioning ?? resolveModel(q.model, q.symbol, false), from, to, points };
}

interface SnapshotQuery {
  readonly symbol: MarketSymbol;
  /** Absent: the latest snapshot. */
  readonly asOfMs?: number;
  readonly venues?: readonly string[];
}

async function pick(store: Store, q: SnapshotQuery): Promise<StoredSnapshot | null> {
  return q.asOfMs === undefined ? latestSnapshot(store, q.symbol) : snapshotAsOf(store, q.symbol, q.asOfMs);
}

export interface MaxPainPerExpiry {
  readonly snapshotAt: number;
  readonly spot: number;
  readonly venues: readonly string[];
  readonly expiries: readonly { readonly expiry: number; readonly max_pain: MaxPain | null }[];
}

export function maxPainOfSnapshot(s: StoredSnapshot, venues?: readonly string[]): MaxPainPerExpiry {
  const agg = sumVenueRows(s.meta, selectRows(s.rows, venues));
  return { snapshotAt: s.meta.computed_at, spot: s.meta.spot, venues: agg.venues, expiries: maxPainByExpiry(agg) };
}

export async function maxPainPerExpiry(store: Store, q: SnapshotQuery): Promise<MaxPainPerExpiry | null> {
  const s = await pick(store, q);
  return s === null ? null : maxPainOfSnapshot(s, q.venues);
}

export interface StrikeExpiryHeatmap {
  readonly snapshotAt: number;
  readonly spot: number;
  readonly positioning: DealerModel;
  readonly venues: readonly string[];
  /** ms UTC, ascending. */
  readonly expiries: readonly number[];
  /** ascending */
  readonly strikes: readonly number[];
  /** net_gex[i][j] = net GEX (USD per 1 %) of expiry i at strike j; 0 where nothing is listed. */
  readonly net_gex: readonly (readonly number[])[];
}

export function heatmapOfSnapshot(s: StoredSnapshot, model: DealerModel, venues?: readonly string[]): StrikeExpiryHeatmap {
  const rows = selectRows(s.rows, venues) as StoredSnapshotRow[];
  const positioning = resolveModel(
    model,
    s.meta.symbol,
    rows.some((r) => r.has_inventory),
  );
  const expiries = [...new Set(rows.flatMap((r) => r.cell_expiry))].sort((a, b) => a - b);
  const strikes = [...new Set(rows.flatMap((r) => r.cell_strike))].sort((a, b) => a - b);
  const ei = new Map(expiries.map((e, i) => [e, i]));
  const si = new Map(strikes.map((k, i) => [k, i]));
  const grid = expiries.map(() => new Array<number>(strikes.length).fill(0));
  for (const r of rows) {
    const values = positioning === 'flow' ? r.cell_gex_flow : r.cell_gex_std;
    for (let c = 0; c < r.cell_expiry.length; c++) {
      const line = grid[ei.get(r.cell_expiry[c] ?? Number.NaN) ?? -1];
      const j = si.get(r.cell_strike[c] ?? Number.NaN);
      if (line === undefined || j === undefined) continue;
      line[j] = (line[j] ?? 0) + (values[c] ?? 0);
    }
  }
  return {
    snapshotAt: s.meta.computed_at,
    spot: s.meta.spot,
    positioning,
    venues: rows.map((r) => r.venue),
    expiries,
    strikes,
    net_gex: grid,
  };
}

export async function strikeExpiryHeatmap(
  store: Store,
  q: SnapshotQuery & { readonly model: DealerModel },
): Promise<StrikeExpiryHeatmap | null> {
  const s = await pick(store, q);
  return s === null ? null : heatmapOfSnapshot(s, q.model, q.venues);
}
