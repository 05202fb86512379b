import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bandOf,
  calibrateAt,
  HOUR_MS,
  hourOpens,
  NORMAL_FACTOR,
  quantile,
  ratioSeries,
  sigmaOf,
  toHourMap,
  type HourPoint,
} from './range-calibration.ts';
import { computeRange, PAST_COLUMNS } from './range.ts';

const H = HOUR_MS;
const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps * Math.max(1, Math.abs(b)), `${a} != ${b}`);

describe('range calibration (hand-computed vectors)', () => {
  test('sigma = DVOL/100 · sqrt(h / 8760); type-7 quantile', () => {
    close(sigmaOf(50, 24), 0.5 * Math.sqrt(24 / 8760));
    close(sigmaOf(87.6, 8760), 0.876);
    assert.equal(quantile([1, 2, 3, 4], 0.68), 3.04); // pos 2.04 -> 3 + 0.04 (4 - 3)
    assert.equal(quantile([5], 0.9), 5);
    close(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9), 9.1); // pos 8.1
  });

  test('ratio = |ln(P(t+h)/P(t))| / sigma_h(DVOL(t)); samples need both prices and the DVOL', () => {
    const d = 10 * Math.sqrt(8760); // sigma_1h = 0.1
    const prices = toHourMap([
      { t: 0, value: 100 },
      { t: H, value: 110 },
      { t: 2 * H, value: 99 },
      { t: 4 * H, value: 99 },
    ]);
    const dvols = toHourMap([
      { t: 0, value: d },
      { t: H, value: d },
      { t: 2 * H, value: d },
    ]);
    const r1 = ratioSeries(prices, dvols, 1);
    assert.deepEqual(
      r1.map((r) => r.t),
      [0, H],
    );
    close(r1[0]?.value ?? 0, Math.log(1.1) / 0.1);
    close(r1[1]?.value ?? 0, Math.abs(Math.log(0.9)) / 0.1);
    const r2 = ratioSeries(prices, dvols, 2);
    assert.deepEqual(
      r2.map((r) => r.t),
      [0, 2 * H],
    );
    close(r2[0]?.value ?? 0, Math.abs(Math.log(0.99)) / (0.1 * Math.SQRT2));
    assert.equal(r2[1]?.value, 0);
  });

  test('factor = empirical quantile over the 30 days before the issue instant (out of sample); normal below 24 samples', () => {
    const ratios: HourPoint[] = Array.from({ length: 30 }, (_, i) => ({ t: i * H, value: i + 1 }));
    const all = calibrateAt(ratios, 1, 30 * H); // t + 1h <= 30h: all 30
    assert.deepEqual([all.samples, all.calibrated], [30, true]);
    close(all.factors[0.68], 20.72); // pos 29 · 0.68 = 19.72 -> 20 + 0.72
    close(all.factors[0.9], 27.1); // pos 26.1
    const part = calibrateAt(ratios, 1, 25 * H); // t <= 24h: ratios 1..25, pos 16.32
    assert.equal(part.samples, 25);
    close(part.factors[0.68], 17.32);
    const h4 = calibrateAt(ratios, 4, 30 * H); // t + 4h <= 30h: t <= 26h, 27 samples
    assert.equal(h4.samples, 27);
    assert.deepEqual(calibrateAt(ratios, 1, 20 * H), { samples: 20, calibrated: false, factors: NORMAL_FACTOR });
    const late = calibrateAt(ratios, 1, 30 * H + 30 * 24 * H - H); // only t >= at - 30 d: t = 29h
    assert.equal(late.samples, 1);
  });

  test('band = spot · exp(∓factor · sigma)', () => {
    const [lo, hi] = bandOf(100, 0.1, 2);
    close(lo, 100 * Math.exp(-0.2));
    close(hi, 100 * Math.exp(0.2));
  });
});

describe('computeRange', () => {
  const NOW = Date.UTC(2026, 5, 10, 12, 30);
  const L1 = Date.UTC(2026, 5, 10, 12); // latest 1h row start
  const d50 = (t: number): HourPoint => ({ t, value: 50 });
  const prices: HourPoint[] = [
    { t: L1 - 3 * H, value: 100 },
    { t: L1 - 2 * H, value: 100.05 },
    { t: L1 - H, value: 103 },
    { t: L1, value: 103 },
  ];
  const base = { now: NOW, spot: 104, dvol: 60, prices, dvols: prices.map((p) => d50(p.t)), historyFloor: null, includePast: true };

  test('current bands: uncalibrated (few samples) -> normal factors around spot with the latest DVOL', () => {
    const r = computeRange(base);
    const h1 = r.horizons['1h'];
    const s = 0.6 / Math.sqrt(8760);
    close(h1.sigma ?? 0, s, 1e-6);
    close(h1.bands?.['68'][0] ?? 0, 104 * Math.exp(-0.9944578832097535 * s), 1e-8);
    close(h1.bands?.['90'][1] ?? 0, 104 * Math.exp(1.6448536269514722 * s), 1e-8);
    assert.deepEqual(h1.calibration, { samples: 3, calibrated: false, factor_68: 0.994458, factor_90: 1.644854 });
    assert.equal(r.calibration_days, 30);
  });

  test('past rows: hourly for a week, tiling, held flags out of sample, the latest row open', () => {
    const h1 = computeRange(base).horizons['1h'];
    assert.deepEqual(h1.past_columns, PAST_COLUMNS);
    const rows = h1.past ?? [];
    assert.equal(rows.length, 168);
    for (let i = 1; i < rows.length; i++) assert.equal(Date.parse(rows[i]?.[0] ?? '') - Date.parse(rows[i - 1]?.[0] ?? ''), H);
    const tail = rows.slice(-4);
    const s = 0.5 / Math.sqrt(8760); // DVOL 50 at each start
    assert.equal(tail[0]?.[0], new Date(L1 - 3 * H).toISOString());
    close(tail[0]?.[2]?.[0] ?? 0, 100 * Math.exp(-0.9944578832097535 * s), 1e-8);
    assert.deepEqual(
      tail.map((r) => [r[1], r[4], r[5], r[6]]),
      [
        [100, 100.05, true, true], // |ln 1.0005| = 0.0005 < 0.9945 · 0.00534
        [100.05, 103, false, false], // ln(103/100.05) = 0.0291
        [103, 103, true, true],
        [103, null, null, null], // latest row: open
      ],
    );
    assert.equal(rows[0]?.[1], null, 'no data: nulls, the row still tiles');
    assert.deepEqual(h1.hit_rate, { '68': 0.666667, '90': 0.666667, rows: 3 });
  });

  test('4-hourly for a month, daily from 00:00 UTC for six months; the plan floor cuts old rows; no past without include', () => {
    const r = computeRange(base);
    const h4 = r.horizons['4h'].past ?? [];
    const d = r.horizons['24h'].past ?? [];
    assert.equal(h4.length, 180);
    assert.equal(h4.at(-1)?.[0], new Date(Date.UTC(2026, 5, 10, 12)).toISOString());
    assert.equal(d.length, 182);
    assert.equal(d.at(-1)?.[0], new Date(Date.UTC(2026, 5, 10)).toISOString());
    assert.equal(d[0]?.[0], new Date(Date.UTC(2026, 5, 10) - 181 * 86_400_000).toISOString());
    const floored = computeRange({ ...base, historyFloor: NOW - 30 * 86_400_000 });
    const fd = floored.horizons['24h'].past ?? [];
    assert.equal(fd[0]?.[0], new Date(Date.UTC(2026, 4, 12)).toISOString()); // first 00:00 at or after the floor
    assert.equal(fd.length, 30);
    const none = computeRange({ ...base, includePast: false });
    assert.equal(none.horizons['1h'].past, undefined);
    assert.equal(none.horizons['1h'].past_columns, undefined);
    assert.deepEqual(none.horizons['1h'].hit_rate, { '68': 0.666667, '90': 0.666667, rows: 3 });
  });

  test('no spot or DVOL -> null bands, never a crash', () => {
    const r = computeRange({ ...base, spot: null, dvol: null, prices: [], dvols: [] });
    assert.equal(r.horizons['24h'].bands, null);
    assert.equal(r.horizons['24h'].sigma, null);
    assert.deepEqual(r.horizons['24h'].hit_rate, { '68': null, '90': null, rows: 0 });
  });
});

describe('hourOpens', () => {
  test('first observation of each hour, newest value last', () => {
    const r = hourOpens([
      { ts: 2 * H + 5, value: 7 },
      { ts: 10, value: 1 },
      { ts: 5, value: 2 },
      { ts: 2 * H + 1, value: 6 },
    ]);
    assert.deepEqual(r, {
      points: [
        { t: 0, value: 2 },
        { t: 2 * H, value: 6 },
      ],
      last: 7,
    });
    assert.deepEqual(hourOpens([]), { points: [], last: null });
  });
});
