/**
 * Calibrated range (/v2/options/range, `gex range`), pure: current bands per horizon, the out-of-sample record
 * and the `include=past` rows. Calibration: ./range-calibration.ts; methodology: processors/README.md.
 */
import {
  bandOf,
  calibrateAt,
  CALIBRATION_DAYS,
  HOUR_MS,
  ratioSeries,
  sigmaOf,
  toHourMap,
  type Calibration,
  type HourPoint,
} from './range-calibration.ts';

export interface HorizonSpec {
  readonly key: '1h' | '4h' | '24h';
  readonly hours: number;
  /** How far back the past rows reach (rows every `hours`, aligned to 00:00 UTC). */
  readonly pastDays: number;
}

/** Hourly rows for a week, 4-hourly for a month, daily (from 00:00 UTC) for six months. */
export const HORIZONS: readonly HorizonSpec[] = [
  { key: '1h', hours: 1, pastDays: 7 },
  { key: '4h', hours: 4, pastDays: 30 },
  { key: '24h', hours: 24, pastDays: 182 },
];

export const PAST_COLUMNS = ['start', 'price_start', 'band_68', 'band_90', 'price_end', 'held_68', 'held_90'] as const;
/** [lower, upper] (mutable tuples: the route's response schema types them so). */
type Band = [number, number];
export type PastRow = [string, number | null, Band | null, Band | null, number | null, boolean | null, boolean | null];

export interface RangeInput {
  readonly now: number;
  /** Latest price and DVOL (vol points); null when none is stored. */
  readonly spot: number | null;
  readonly dvol: number | null;
  /** Price and DVOL at each hour start (first observation of the hour). */
  readonly prices: readonly HourPoint[];
  readonly dvols: readonly HourPoint[];
  /** Earliest instant the plan may read (past rows start at or after it); null = unlimited. */
  readonly historyFloor: number | null;
  readonly includePast: boolean;
}

export interface HorizonData {
  readonly hours: number;
  readonly sigma: number | null;
  readonly bands: { readonly '68': Band; readonly '90': Band } | null;
  readonly calibration: { readonly samples: number; readonly calibrated: boolean; readonly factor_68: number; readonly factor_90: number };
  readonly hit_rate: { readonly '68': number | null; readonly '90': number | null; readonly rows: number };
  readonly past_columns?: string[];
  readonly past?: PastRow[];
}

export interface RangeData {
  readonly spot: number | null;
  readonly dvol: number | null;
  readonly calibration_days: number;
  readonly horizons: Readonly<Record<HorizonSpec['key'], HorizonData>>;
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;
const roundBand = (b: Band): Band => [round(b[0]), round(b[1])];

function bandsFor(spot: number, sigma: number, c: Calibration): { '68': Band; '90': Band } {
  return { '68': roundBand(bandOf(spot, sigma, c.factors[0.68])), '90': roundBand(bandOf(spot, sigma, c.factors[0.9])) };
}

const inside = (b: Band | null, p: number | null): boolean | null => (b === null || p === null ? null : p >= b[0] && p <= b[1]);

/** Rows tiling [first aligned start >= floor, latest start <= now], one per `hours`. */
export function pastRows(
  h: HorizonSpec,
  input: RangeInput,
  prices: ReadonlyMap<number, number>,
  dvols: ReadonlyMap<number, number>,
  ratios: readonly HourPoint[],
): PastRow[] {
  const step = h.hours * HOUR_MS;
  const latest = Math.floor(input.now / step) * step;
  let first = latest - (Math.round((h.pastDays * 24) / h.hours) - 1) * step;
  if (input.historyFloor !== null && first < input.historyFloor) first = Math.ceil(input.historyFloor / step) * step;
  const rows: PastRow[] = [];
  for (let t = first; t <= latest; t += step) {
    const p0 = prices.get(t) ?? null;
    const d = dvols.get(t) ?? null;
    const c = calibrateAt(ratios, h.hours, t);
    const bands = p0 === null || d === null ? null : bandsFor(p0, sigmaOf(d, h.hours), c);
    const end = t === latest ? null : (prices.get(t + step) ?? null);
    rows.push([
      new Date(t).toISOString(),
      p0,
      bands?.['68'] ?? null,
      bands?.['90'] ?? null,
      end,
      inside(bands?.['68'] ?? null, end),
      inside(bands?.['90'] ?? null, end),
    ]);
  }
  return rows;
}

function hitRate(rows: readonly PastRow[]): HorizonData['hit_rate'] {
  const judged = rows.filter((r) => r[5] !== null && r[6] !== null);
  if (judged.length === 0) return { '68': null, '90': null, rows: 0 };
  const share = (i: 5 | 6): number => round(judged.filter((r) => r[i] === true).length / judged.length);
  return { '68': share(5), '90': share(6), rows: judged.length };
}

export function computeRange(input: RangeInput): RangeData {
  const prices = toHourMap(input.prices);
  const dvols = toHourMap(input.dvols);
  const horizons = {} as Record<HorizonSpec['key'], HorizonData>;
  for (const h of HORIZONS) {
    const ratios = ratioSeries(prices, dvols, h.hours);
    const c = calibrateAt(ratios, h.hours, input.now);
    const sigma = input.dvol === null ? null : sigmaOf(input.dvol, h.hours);
    const rows = pastRows(h, input, prices, dvols, ratios);
    horizons[h.key] = {
      hours: h.hours,
      sigma: sigma === null ? null : round(sigma),
      bands: sigma === null || input.spot === null ? null : bandsFor(input.spot, sigma, c),
      calibration: { samples: c.samples, calibrated: c.calibrated, factor_68: round(c.factors[0.68]), factor_90: round(c.factors[0.9]) },
      hit_rate: hitRate(rows),
      ...(input.includePast ? { past_columns: [...PAST_COLUMNS], past: rows } : {}),
    };
  }
  return { spot: input.spot, dvol: input.dvol, calibration_days: CALIBRATION_DAYS, horizons };
}
