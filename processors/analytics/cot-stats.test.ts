import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extremeFlags, percentileRank, windowStart, zScore } from './cot-stats.ts';
import { assetClassOf } from './cot-markets.ts';
import { cotSeries, type CotWeek } from './cot-summary.ts';
import { instrumentHistory, summaryRows } from './cot-rows.ts';
import { daysSince, etfFlowsData, holdersData, priorQuarterEnd } from './reference-flows.ts';

test('percentile rank: 100 × (below + ½ other equal) / (n − 1), hand-computed', () => {
  assert.equal(percentileRank([1, 2, 3, 4, 5], 5), 100);
  assert.equal(percentileRank([1, 2, 3, 4, 5], 1), 0);
  assert.equal(percentileRank([1, 2, 3, 4, 5], 3), 50);
  assert.equal(percentileRank([10, 30, 20, 20], 20), (100 * (1 + 0.5)) / 3); // 50
  assert.equal(percentileRank([7, 7, 7], 7), 50);
  assert.equal(percentileRank([4], 4), null);
});

test('z-score: sample standard deviation (n − 1), hand-computed', () => {
  // mean 5, squared deviations 9+1+1+9 = 20, variance 20/3, sd 2.5820; (8 − 5)/2.5820 = 1.1619
  assert.ok(Math.abs((zScore([2, 4, 6, 8], 8) ?? 0) - 3 / Math.sqrt(20 / 3)) < 1e-12);
  assert.equal(Math.round((zScore([2, 4, 6, 8], 8) ?? 0) * 1e4) / 1e4, 1.1619);
  assert.equal(zScore([1, 2], 2), null);
  assert.equal(zScore([3, 3, 3], 3), null);
});

test('windows are trailing and include the week: 1y = weeks after t − 365 days', () => {
  const dates = ['2024-03-12', '2025-03-11', '2025-03-18', '2026-03-17'];
  assert.equal(windowStart(dates, 3, '1y'), 2); // 2025-03-18 is 364 days before 2026-03-17; 2025-03-11 is 371
  assert.equal(windowStart(dates, 2, '1y'), 1);
  assert.equal(windowStart(dates, 3, '3y'), 0);
  assert.equal(windowStart(dates, 3, 'all'), 0);
  assert.deepEqual(extremeFlags(96, 0.5), { extreme_high: true, extreme_low: false });
  assert.deepEqual(extremeFlags(50, -2.1), { extreme_high: false, extreme_low: true });
  assert.deepEqual(extremeFlags(null, null), { extreme_high: false, extreme_low: false });
});

test('asset classes from CFTC market names', () => {
  assert.equal(assetClassOf('MICRO ETHER  - CHICAGO MERCANTILE EXCHANGE'), 'crypto');
  assert.equal(assetClassOf('CANADIAN DOLLAR - CHICAGO MERCANTILE EXCHANGE'), 'fx');
  assert.equal(assetClassOf('UST 10Y NOTE - CHICAGO BOARD OF TRADE'), 'rates');
  assert.equal(assetClassOf('E-MINI S&P 500 - CHICAGO MERCANTILE EXCHANGE'), 'equity');
  assert.equal(assetClassOf('CRUDE OIL, LIGHT SWEET-WTI - ICE FUTURES EUROPE'), 'commodity_energy');
  assert.equal(assetClassOf('GOLD - COMMODITY EXCHANGE INC.'), 'commodity_metal');
  assert.equal(assetClassOf('CORN - CHICAGO BOARD OF TRADE'), 'commodity_ag');
  assert.equal(assetClassOf('SOLAR WIDGETS - NOWHERE'), 'other');
});

/** TFF weeks of one market: asset_mgr net = a, lev_money net = f (long = net, short = 0), OI 1000. */
const week = (code: string, date: string, a: number, f: number, report: CotWeek['report'] = 'tff'): CotWeek => ({
  marketCode: code,
  marketName: 'BITCOIN - CHICAGO MERCANTILE EXCHANGE',
  report,
  variant: 'futures_only',
  reportDate: date,
  openInterest: 1000,
  categories: ['dealer', 'asset_mgr', 'lev_money', 'other_rept', 'nonrept'],
  long: [0, Math.max(a, 0), Math.max(f, 0), 0, 0],
  short: [0, Math.max(-a, 0), Math.max(-f, 0), 0, 0],
});

test('summary row: smart/fast stats, change, share of OI, extremity, divergence, preferred report, sort', () => {
  const dates = ['2026-02-17', '2026-02-24', '2026-03-03', '2026-03-10', '2026-03-17'];
  const a = [2, 4, 6, 8, 10]; // smart rising: latest is the high -> percentile 100, z = (10-6)/sqrt(10) = 1.2649
  const f = [-1, -2, -3, -4, -10]; // fast falling: percentile 0, z = (-10+4)/sd([-1,-2,-3,-4,-10])
  const weeks = dates.map((d, i) => week('133741', d, a[i] as number, f[i] as number));
  weeks.push(week('133741', '2026-03-17', 99, 99, 'legacy')); // another report of the same market: not preferred
  weeks.push(week('146021', '2026-03-10', 5, 5), week('146021', '2026-03-17', 5, 6));
  const series = cotSeries(weeks);
  assert.deepEqual(
    series.map((s) => [s.id, s.report, s.weeks.length]),
    [
      ['133741', 'tff', 5],
      ['146021', 'tff', 2],
    ],
  );
  const rows = summaryRows(series, { assetClass: 'crypto', span: 'all', sort: 'extremity', limit: 10, extremesOnly: false });
  const btc = rows[0];
  assert.ok(btc);
  assert.equal(btc.id, '133741');
  const smart = btc.categories.find((c) => c.role === 'smart');
  const fast = btc.categories.find((c) => c.role === 'fast');
  assert.deepEqual(
    [smart?.category, smart?.net, smart?.change, smart?.net_pct_oi, smart?.percentile_1y, smart?.zscore],
    ['asset_mgr', 10, 2, 1, 100, 1.265],
  );
  // fast: mean -4, deviations 3,2,1,0,-6 -> squares 9+4+1+0+36 = 50, variance 12.5, sd 3.5355; z = -6/3.5355 = -1.6971
  assert.deepEqual([fast?.net, fast?.change, fast?.percentile_1y, fast?.zscore, fast?.extreme_low], [-10, -6, 0, -1.697, true]);
  assert.equal(btc.extremity, 1.697);
  assert.equal(btc.divergence, 2.962);
  assert.equal(btc.extreme, true);
  assert.equal(btc.open_interest_change, 0);
  // 146021 has 2 weeks: no z-score (null extremity sorts last), percentile 100 for fast.
  assert.equal(rows[1]?.extremity, null);
  const byNet = summaryRows(series, { assetClass: 'all', span: 'all', sort: 'net', limit: 1, extremesOnly: false });
  assert.equal(byNet[0]?.id, '133741'); // |−10|/1000 vs |6|/1000
  assert.equal(summaryRows(series, { assetClass: 'fx', span: 'all', sort: 'net', limit: 10, extremesOnly: false }).length, 0);
  assert.equal(summaryRows(series, { assetClass: 'all', span: 'all', sort: 'wow_abs', limit: 10, extremesOnly: true }).length, 1);
  const h = instrumentHistory(series[0] as (typeof series)[number], '1y');
  assert.equal(h.history.length, 5);
  assert.equal(h.history[0]?.categories[1]?.percentile_1y, null, 'one week: no percentile');
  assert.equal(h.history[2]?.categories[1]?.percentile_1y, 100);
});

test('ETF flows data: funds listed later are 0 before, running cumulatives; days since latest', () => {
  const d = etfFlowsData('BTC', 'us', [
    { date: '2024-01-12', funds: ['IBIT', 'GBTC'], flows: [386, -484.1], total: -98.1 },
    { date: '2024-01-11', funds: ['IBIT'], flows: [111.7], total: 111.7 },
  ]);
  assert.deepEqual(d.funds, ['IBIT', 'GBTC']);
  assert.deepEqual(d.days, [
    { date: '2024-01-11', flows: { IBIT: 111.7, GBTC: 0 }, total: 111.7, cumulative: 111.7 },
    { date: '2024-01-12', flows: { IBIT: 386, GBTC: -484.1 }, total: -98.1, cumulative: 13.6 },
  ]);
  assert.deepEqual(d.cumulative_by_fund, { IBIT: 497.7, GBTC: -484.1 });
  assert.equal(daysSince('2026-08-21', Date.parse('2026-08-24T12:00:00Z')), 3);
});

test('holders: latest quarter by shares; share_change vs the prior calendar quarter, null when not reported', () => {
  assert.equal(priorQuarterEnd('2026-03-31'), '2025-12-31');
  assert.equal(priorQuarterEnd('2026-09-30'), '2026-06-30');
  assert.equal(priorQuarterEnd('2026-06-30'), '2026-03-31');
  const p = (cik: string, periodEnd: string, shares: number) => ({ cik, filerName: cik, periodEnd, shares, valueUsd: shares * 2 });
  const d = holdersData(
    'MSTR',
    '594972408',
    [
      p('A', '2025-12-31', 100),
      p('A', '2026-03-31', 120),
      p('B', '2026-03-31', 6),
      p('B', '2026-03-31', 4),
      p('C', '2025-09-30', 50),
      p('C', '2026-03-31', 50),
    ],
    2,
  );
  assert.equal(d.period_end, '2026-03-31');
  assert.equal(d.holder_count, 3);
  assert.deepEqual(d.holders, [
    { cik: 'A', name: 'A', shares: 120, value_usd: 240, share_change: 20, period_end: '2026-03-31' },
    { cik: 'C', name: 'C', shares: 50, value_usd: 100, share_change: null, period_end: '2026-03-31' },
  ]);
});
