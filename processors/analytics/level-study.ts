/**
 * Level study (/v2/gex/level-study, `gex study levels`): did price respect the GEX levels? From a series of level
 * snapshots of one symbol and model, each with its spot S and the all-expiry levels, sampled on a grid:
 * - instants t_i every `step` (UTC epoch multiples) from `from` to `to − horizon`; each takes the snapshot at or
 *   before t_i, at most 30 s earlier (else the instant is missing); its path is every snapshot with
 *   t_i < t_j ≤ t_i + horizon (an empty path is missing too).
 * - a level L (skipped when null or equal to S_i): side = sign(S_i − L), distance = |S_i − L| / S_i; touched when a
 *   path spot S_j has (S_j − L)·side ≤ 0; held when touched and (S_end − L)·side > 0 (S_end = the path's last spot);
 *   broke = touched and not held.
 * - placebo: the mirror level L' = 2·S_i − L under the same rules; edge = hold rate of L − hold rate of L'.
 * - regimes: realized volatility of the path RV_i = sqrt((365·86400 / horizon_s) · Σ r_j²), r_j = ln(S_j / S_j−1)
 *   over consecutive path points starting from S_i; mean RV and count for net GEX > 0 / < 0 and spot above / below
 *   hvl at t_i.
 * Rates are fractions (null without a denominator), counts integers. Pure: no I/O.
 */

/** The definitions above as published (/v2/meta `level_study`). */
export const LEVEL_STUDY_DEFINITIONS = [
  'sample instants t_i every `step` (UTC epoch multiples) from `from` to `to − horizon`; each takes the stored snapshot at or before t_i, at most 30 s earlier, else the instant is missing',
  'path of t_i: every stored snapshot with t_i < t_j ≤ t_i + horizon (an empty path is missing); price = the snapshots’ own spot_price',
  'a level L (hvl, call_resistance, put_support of all expiries; skipped when null or equal to spot S_i): side = sign(S_i − L), distance = |S_i − L| / S_i',
  'touched: some path spot S_j has (S_j − L)·side ≤ 0; held (touched only): (S_end − L)·side > 0 with S_end the last path spot; broke = touched and not held',
  'placebo: the mirror level L′ = 2·S_i − L under the same rules; edge = hold rate of L − hold rate of L′, each over its own touched instants',
  'regimes: RV_i = sqrt((365·86400 / horizon_seconds) · Σ r_j²), r_j = ln(S_j / S_j−1) over consecutive path points starting from S_i; mean RV and count for net GEX > 0 / < 0 and spot above / below hvl at t_i',
  'rates are fractions (null without a denominator), counts integers',
] as const;

export const STUDY_LEVELS = ['hvl', 'call_resistance', 'put_support'] as const;
export type StudyLevel = (typeof STUDY_LEVELS)[number];

/** The snapshot at t_i may be at most this much older than t_i. */
export const SAMPLE_TOLERANCE_MS = 30_000;
const YEAR_SECONDS = 365 * 86_400;

export interface StudySnapshot {
  /** computed_at, epoch ms. */
  readonly t: number;
  readonly spot: number;
  readonly hvl: number | null;
  readonly call_resistance: number | null;
  readonly put_support: number | null;
  readonly net_gex: number | null;
}

export interface StudyOptions {
  /** First instant considered, ms (the grid starts at the first step multiple at or after it). */
  readonly from: number;
  /** Last instant considered, ms: the grid ends at the last step multiple at or before to − horizon. */
  readonly to: number;
  readonly horizonMs: number;
  readonly stepMs: number;
}

export interface HoldCounts {
  readonly touched: number;
  readonly held: number;
  readonly touch_rate: number | null;
  readonly hold_rate: number | null;
}

export interface LevelOutcome extends HoldCounts {
  /** Sampled instants where the level was set and differed from spot. */
  readonly instants: number;
  readonly broke: number;
  readonly mean_distance: number | null;
  readonly placebo: HoldCounts;
  /** hold_rate − placebo.hold_rate; null when either is null. */
  readonly edge: number | null;
}

export interface Regime {
  readonly count: number;
  readonly mean_rv: number | null;
}

export interface LevelStudy {
  readonly from: string;
  readonly to: string;
  readonly horizon_seconds: number;
  readonly step_seconds: number;
  /** Grid instants. */
  readonly instants: number;
  /** Grid instants without a snapshot within 30 s before, or with an empty path. */
  readonly missing: number;
  readonly levels: Readonly<Record<StudyLevel, LevelOutcome>>;
  readonly regimes: {
    readonly net_gex_positive: Regime;
    readonly net_gex_negative: Regime;
    readonly spot_above_hvl: Regime;
    readonly spot_below_hvl: Regime;
  };
}

const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

class Tally {
  instants = 0;
  distance = 0;
  readonly real = { touched: 0, held: 0 };
  readonly mirror = { touched: 0, held: 0 };

  add(s: number, level: number, path: PathStats): void {
    this.instants++;
    this.distance += Math.abs(s - level) / s;
    count(this.real, s, level, path);
    count(this.mirror, s, 2 * s - level, path);
  }

  outcome(): LevelOutcome {
    const real = holdCounts(this.real, this.instants);
    const placebo = holdCounts(this.mirror, this.instants);
    return {
      instants: this.instants,
      ...real,
      broke: this.real.touched - this.real.held,
      mean_distance: ratio(this.distance, this.instants),
      placebo,
      edge: real.hold_rate === null || placebo.hold_rate === null ? null : real.hold_rate - placebo.hold_rate,
    };
  }
}

/** What the rules need of a path: its lowest, highest and last spot, and Σ r² from the sampled spot. */
interface PathStats {
  lo: number;
  hi: number;
  last: number;
  sumR2: number;
}

/**
 * Touched: some S_j with (S_j − L)·side ≤ 0, i.e. the lowest path spot ≤ L for a level below spot (side 1) and the
 * highest ≥ L for one above (side −1): for finite doubles S_j − L ≤ 0 exactly when S_j ≤ L.
 */
function count(c: { touched: number; held: number }, s: number, level: number, path: PathStats): void {
  const side = Math.sign(s - level);
  const touched = side > 0 ? path.lo <= level : side < 0 ? path.hi >= level : false;
  if (!touched) return;
  c.touched++;
  if ((path.last - level) * side > 0) c.held++;
}

const holdCounts = (c: { touched: number; held: number }, instants: number): HoldCounts => ({
  touched: c.touched,
  held: c.held,
  touch_rate: ratio(c.touched, instants),
  hold_rate: ratio(c.held, c.touched),
});

class RegimeTally {
  count = 0;
  sum = 0;
  add(rv: number): void {
    this.count++;
    this.sum += rv;
  }
  regime(): Regime {
    return { count: this.count, mean_rv: ratio(this.sum, this.count) };
  }
}

/** The levels a snapshot carries at an instant it samples. */
export type StudyLevels = Pick<StudySnapshot, 'hvl' | 'call_resistance' | 'put_support' | 'net_gex'>;

/**
 * Snapshots as columns (what the route reads from the store): times ascending (epoch ms, no duplicates) and spots,
 * and the levels of the snapshots by time. Only a snapshot a grid instant samples needs its levels: one without an
 * entry has none (every level null).
 */
export interface StudyColumns {
  readonly t: Float64Array;
  readonly spot: Float64Array;
  readonly levels: ReadonlyMap<number, StudyLevels>;
}

const NO_LEVELS: StudyLevels = { hvl: null, call_resistance: null, put_support: null, net_gex: null };

/** Columns of snapshots sorted ascending by t (a duplicate instant keeps the later entry). */
export function columnsOf(snaps: readonly StudySnapshot[]): StudyColumns {
  const kept = snaps.filter((s, i) => (snaps[i + 1] as StudySnapshot | undefined)?.t !== s.t);
  const levels = new Map<number, StudyLevels>();
  for (const s of kept) levels.set(s.t, { hvl: s.hvl, call_resistance: s.call_resistance, put_support: s.put_support, net_gex: s.net_gex });
  return { t: Float64Array.from(kept, (s) => s.t), spot: Float64Array.from(kept, (s) => s.spot), levels };
}

/** Index of the last time ≤ at, or -1 (times ascending). */
export function atOrBefore(t: Float64Array, at: number): number {
  let lo = 0;
  let hi = t.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((t[mid] as number) <= at) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The grid of instants: step multiples from `from` to `to − horizon`. */
function gridOf(o: StudyOptions): { readonly first: number; readonly last: number } {
  return { first: Math.ceil(o.from / o.stepMs) * o.stepMs, last: Math.floor((o.to - o.horizonMs) / o.stepMs) * o.stepMs };
}

/**
 * computed_at of the snapshot each grid instant samples (the instants a venue-filtered study needs levels for):
 * the same grid and 30 s rule as levelStudy, missing instants left out.
 */
export function sampledTimes(t: Float64Array, o: StudyOptions): number[] {
  const out: number[] = [];
  const g = gridOf(o);
  for (let at = g.first; at <= g.last; at += o.stepMs) {
    const i = atOrBefore(t, at);
    const ti = t[i];
    if (ti !== undefined && at - ti <= SAMPLE_TOLERANCE_MS && out.at(-1) !== ti) out.push(ti);
  }
  return out;
}

/** Realized volatility of a path from spot s, annualized over the horizon. */
export function realizedVol(s: number, path: ArrayLike<number>, horizonSeconds: number): number {
  let sum = 0;
  let prev = s;
  for (let i = 0; i < path.length; i++) {
    const p = path[i] as number;
    const r = Math.log(p / prev);
    sum += r * r;
    prev = p;
  }
  return annualized(sum, horizonSeconds);
}

const annualized = (sumR2: number, horizonSeconds: number): number => Math.sqrt((YEAR_SECONDS / horizonSeconds) * sumR2);

/** r² of each consecutive pair: out[j] = ln(spot[j] / spot[j − 1])² (out[0] = 0); the same terms realizedVol sums. */
function squaredReturns(spot: Float64Array): Float64Array {
  const out = new Float64Array(spot.length);
  for (let j = 1; j < spot.length; j++) {
    const r = Math.log((spot[j] as number) / (spot[j - 1] as number));
    out[j] = r * r;
  }
  return out;
}

/** The stats of the path spot[from..to) (not empty) into `into`; r² summed in path order, as realizedVol does. */
function pathStats(spot: Float64Array, r2: Float64Array, from: number, to: number, into: PathStats): void {
  let lo = Infinity;
  let hi = -Infinity;
  let sum = 0;
  for (let j = from; j < to; j++) {
    const p = spot[j] as number;
    if (p < lo) lo = p;
    if (p > hi) hi = p;
    sum += r2[j] as number;
  }
  into.lo = lo;
  into.hi = hi;
  into.last = spot[to - 1] as number;
  into.sumR2 = sum;
}

/** The study over snapshots sorted ascending by t (a duplicate instant keeps the later entry). */
export function levelStudy(snaps: readonly StudySnapshot[], o: StudyOptions): LevelStudy {
  return levelStudyOf(columnsOf(snaps), o);
}

/** The study over snapshot columns. */
export function levelStudyOf(c: StudyColumns, o: StudyOptions): LevelStudy {
  const tallies = { hvl: new Tally(), call_resistance: new Tally(), put_support: new Tally() };
  const regimes = {
    net_gex_positive: new RegimeTally(),
    net_gex_negative: new RegimeTally(),
    above: new RegimeTally(),
    below: new RegimeTally(),
  };
  const horizonSeconds = o.horizonMs / 1000;
  const g = gridOf(o);
  let instants = 0;
  let missing = 0;
  let end = 0;
  const r2 = squaredReturns(c.spot);
  const path: PathStats = { lo: 0, hi: 0, last: 0, sumR2: 0 };
  for (let at = g.first; at <= g.last; at += o.stepMs) {
    instants++;
    const i = atOrBefore(c.t, at);
    const ti = c.t[i];
    if (ti === undefined || at - ti > SAMPLE_TOLERANCE_MS) {
      missing++;
      continue;
    }
    // The path: every later snapshot up to at + horizon (times after index i are all after `at`).
    end = Math.max(end, i + 1);
    while (end < c.t.length && (c.t[end] as number) <= at + o.horizonMs) end++;
    if (end <= i + 1) {
      missing++;
      continue;
    }
    pathStats(c.spot, r2, i + 1, end, path);
    const s = c.spot[i] as number;
    const snap = c.levels.get(ti) ?? NO_LEVELS;
    for (const kind of STUDY_LEVELS) {
      const level = snap[kind];
      if (level !== null && level !== s) tallies[kind].add(s, level, path);
    }
    const rv = annualized(path.sumR2, horizonSeconds);
    if (snap.net_gex !== null && snap.net_gex > 0) regimes.net_gex_positive.add(rv);
    if (snap.net_gex !== null && snap.net_gex < 0) regimes.net_gex_negative.add(rv);
    if (snap.hvl !== null && s > snap.hvl) regimes.above.add(rv);
    if (snap.hvl !== null && s < snap.hvl) regimes.below.add(rv);
  }
  return {
    from: new Date(o.from).toISOString(),
    to: new Date(o.to).toISOString(),
    horizon_seconds: horizonSeconds,
    step_seconds: o.stepMs / 1000,
    instants,
    missing,
    levels: {
      hvl: tallies.hvl.outcome(),
      call_resistance: tallies.call_resistance.outcome(),
      put_support: tallies.put_support.outcome(),
    },
    regimes: {
      net_gex_positive: regimes.net_gex_positive.regime(),
      net_gex_negative: regimes.net_gex_negative.regime(),
      spot_above_hvl: regimes.above.regime(),
      spot_below_hvl: regimes.below.regime(),
    },
  };
}

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `4h`, `1d` → ms; null when not a positive whole number of minutes, hours or days. */
export function parseDuration(text: string): number | null {
  const m = /^(\d{1,4})([mhd])$/.exec(text.trim());
  if (m === null) return null;
  const ms = Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  return ms > 0 ? ms : null;
}
