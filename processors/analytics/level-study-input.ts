/**
 * The file input of `gex study levels --levels FILE`: JSON lines, each one /v2/gex/levels answer (as the as_of route
 * returns it): either the whole answer `{success, data, meta}` (computed_at and spot_price from meta) or its `data`
 * object carrying `computed_at` and `spot.spot_price` (include=spot). Errors name the line. Pure.
 */
import type { StudySnapshot } from './level-study.ts';

interface LevelsLine {
  readonly data?: { readonly all_expiry?: Record<string, unknown> };
  readonly meta?: { readonly computed_at?: unknown; readonly spot_price?: unknown };
  readonly all_expiry?: Record<string, unknown>;
  readonly computed_at?: unknown;
  readonly spot?: { readonly spot_price?: unknown };
}

const numberOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function snapshotOf(o: LevelsLine, where: string): StudySnapshot {
  const answer = o.data !== undefined && o.meta !== undefined;
  const levels = answer ? o.data?.all_expiry : o.all_expiry;
  const at = answer ? o.meta?.computed_at : o.computed_at;
  const spot = answer ? o.meta?.spot_price : o.spot?.spot_price;
  const t = typeof at === 'string' ? Date.parse(at) : Number.NaN;
  if (!Number.isFinite(t)) throw new Error(`${where}: no computed_at (${answer ? 'meta.computed_at' : 'computed_at'})`);
  if (typeof spot !== 'number' || !(spot > 0))
    throw new Error(`${where}: no spot price (${answer ? 'meta.spot_price' : 'spot.spot_price'})`);
  if (levels === undefined || typeof levels !== 'object') throw new Error(`${where}: no all_expiry levels`);
  return {
    t,
    spot,
    hvl: numberOrNull(levels['hvl']),
    call_resistance: numberOrNull(levels['call_resistance']),
    put_support: numberOrNull(levels['put_support']),
    net_gex: numberOrNull(levels['net_gex']),
  };
}

/** The snapshots of the file, ascending by computed_at. */
export function parseLevelsLines(text: string): StudySnapshot[] {
  const snaps = text
    .split('\n')
    .map((l, i) => [l.trim(), i + 1] as const)
    .filter(([l]) => l !== '')
    .map(([l, n]) => {
      let o: unknown;
      try {
        o = JSON.parse(l);
      } catch {
        throw new Error(`line ${n}: not JSON`);
      }
      if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new Error(`line ${n}: not an object`);
      return snapshotOf(o as LevelsLine, `line ${n}`);
    });
  return snaps.sort((a, b) => a.t - b.t);
}
