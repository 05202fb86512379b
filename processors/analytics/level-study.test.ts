import { test } from 'node:test';
import assert from 'node:assert/strict';
import { levelStudy, parseDuration, realizedVol, type StudySnapshot } from './level-study.ts';
import { parseLevelsLines } from './level-study-input.ts';

const M = 60_000;
const snap = (min: number, spot: number, levels: Partial<StudySnapshot> = {}): StudySnapshot => ({
  t: min * M,
  spot,
  hvl: null,
  call_resistance: null,
  put_support: null,
  net_gex: null,
  ...levels,
});

// Grid: step 45 min, horizon 45 min, from 0 to 180 min → instants 0, 45, 90, 135.
//   t=0   S=100, hvl 95, call_resistance 104, put_support 90, net GEX > 0; path 103, 105, 101.
//   t=45  S=101, hvl 99, call_resistance 104, put_support null, net GEX < 0; path 98.5, 97, 98.
//   t=90  S=98: path (90, 135] is empty → missing.
//   t=135 the snapshot at or before is t=90, 45 min old (> 30 s) → missing.
const SNAPS = [
  snap(0, 100, { hvl: 95, call_resistance: 104, put_support: 90, net_gex: 1 }),
  snap(15, 103),
  snap(30, 105),
  snap(45, 101, { hvl: 99, call_resistance: 104, net_gex: -2 }),
  snap(60, 98.5),
  snap(75, 97),
  snap(90, 98, { hvl: 97, call_resistance: 100, put_support: 95, net_gex: 3 }),
  snap(170, 99),
];
const OPTS = { from: 0, to: 180 * M, horizonMs: 45 * M, stepMs: 45 * M };
const K = (365 * 86_400) / 2_700;
const RV0 = Math.sqrt(K * (Math.log(103 / 100) ** 2 + Math.log(105 / 103) ** 2 + Math.log(101 / 105) ** 2));
const RV45 = Math.sqrt(K * (Math.log(98.5 / 101) ** 2 + Math.log(97 / 98.5) ** 2 + Math.log(98 / 97) ** 2));

test('hand vector: touched and held, touched and broke, never touched, a null level, two missing instants', () => {
  const r = levelStudy(SNAPS, OPTS);
  assert.deepEqual([r.instants, r.missing, r.horizon_seconds, r.step_seconds], [4, 2, 2_700, 2_700]);
  // hvl: t0 95 below spot, never reached (path ≥ 101); t45 99: 98.5 touches, path ends at 98 below → broke.
  // Placebo: t0 2·100 − 95 = 105 reached, ends 101 below it (side −) → held; t45 2·101 − 99 = 103 never reached.
  assert.deepEqual(r.levels.hvl, {
    instants: 2,
    touched: 1,
    held: 0,
    touch_rate: 0.5,
    hold_rate: 0,
    broke: 1,
    mean_distance: (5 / 100 + 2 / 101) / 2,
    placebo: { touched: 1, held: 1, touch_rate: 0.5, hold_rate: 1 },
    edge: -1,
  });
  // call_resistance: t0 104 above spot: 105 touches, ends 101 below → held; t45 104 never reached.
  // Placebo: t0 96 never reached; t45 98: 97 touches, ends exactly at 98 ((98 − 98)·1 = 0, not > 0) → broke.
  assert.deepEqual(r.levels.call_resistance, {
    instants: 2,
    touched: 1,
    held: 1,
    touch_rate: 0.5,
    hold_rate: 1,
    broke: 0,
    mean_distance: (4 / 100 + 3 / 101) / 2,
    placebo: { touched: 1, held: 0, touch_rate: 0.5, hold_rate: 0 },
    edge: 1,
  });
  // put_support: only t0 (null at t45), 90 and its mirror 110 never reached: rates without touches are null.
  assert.deepEqual(r.levels.put_support, {
    instants: 1,
    touched: 0,
    held: 0,
    touch_rate: 0,
    hold_rate: null,
    broke: 0,
    mean_distance: 0.1,
    placebo: { touched: 0, held: 0, touch_rate: 0, hold_rate: null },
    edge: null,
  });
  assert.deepEqual(r.regimes, {
    net_gex_positive: { count: 1, mean_rv: RV0 },
    net_gex_negative: { count: 1, mean_rv: RV45 },
    spot_above_hvl: { count: 2, mean_rv: (RV0 + RV45) / 2 },
    spot_below_hvl: { count: 0, mean_rv: null },
  });
});

test('sampling: the snapshot at or before the instant within 30 s; grid instants are step multiples; a level equal to spot is skipped', () => {
  const late = [snap(0, 100), snap(44.5, 101, { hvl: 101, call_resistance: 102 }), snap(60, 103), snap(90, 99)];
  // from = 1 min: the grid starts at 45 (the first multiple of 45 min at or after it); to − horizon = 91 − 45 = 46 → one instant.
  const r = levelStudy(late, { from: M, to: 91 * M, horizonMs: 45 * M, stepMs: 45 * M });
  assert.deepEqual([r.instants, r.missing], [1, 0]);
  assert.equal(r.levels.hvl.instants, 0, 'hvl equal to spot: skipped');
  assert.equal(r.levels.call_resistance.instants, 1);
  assert.equal(r.levels.call_resistance.touched, 1); // 103 ≥ 102
  assert.equal(r.levels.call_resistance.held, 1); // ends 99 below 102
  const tooOld = levelStudy([snap(44, 101, { hvl: 90 }), snap(60, 103)], { from: 45 * M, to: 90 * M, horizonMs: 45 * M, stepMs: 45 * M });
  assert.deepEqual([tooOld.instants, tooOld.missing], [1, 1], '60 s before the instant is more than 30 s');
  const empty = levelStudy([], OPTS);
  assert.deepEqual([empty.instants, empty.missing, empty.levels.hvl.hold_rate, empty.regimes.spot_above_hvl.mean_rv], [4, 4, null, null]);
});

test('realized volatility and durations', () => {
  // Two 1 % up moves over one hour: sqrt(8760 · 2 · ln(1.01)²).
  assert.equal(realizedVol(100, [101, 102.01], 3_600), Math.sqrt(8_760 * 2 * Math.log(1.01) ** 2));
  assert.equal(realizedVol(100, [100, 100], 3_600), 0);
  assert.deepEqual(['30m', '4h', '1d', '0h', '4x', '', '12345h'].map(parseDuration), [
    1_800_000,
    14_400_000,
    86_400_000,
    null,
    null,
    null,
    null,
  ]);
});

test('file input: whole answers or data with computed_at and spot; sorted; errors name the line', () => {
  const answer = (t: string, spot: number, hvl: number | null) =>
    JSON.stringify({
      success: true,
      data: { all_expiry: { hvl, call_resistance: 110, put_support: 90, net_gex: -5 } },
      meta: { computed_at: t, spot_price: spot },
    });
  const data = JSON.stringify({
    computed_at: '2026-01-01T00:00:00Z',
    spot: { spot_price: 99 },
    all_expiry: { hvl: 98, call_resistance: null, put_support: 90, net_gex: 7 },
  });
  const snaps = parseLevelsLines(`${answer('2026-01-01T00:00:30Z', 100, null)}\n\n${data}\n`);
  assert.deepEqual(snaps, [
    { t: Date.parse('2026-01-01T00:00:00Z'), spot: 99, hvl: 98, call_resistance: null, put_support: 90, net_gex: 7 },
    { t: Date.parse('2026-01-01T00:00:30Z'), spot: 100, hvl: null, call_resistance: 110, put_support: 90, net_gex: -5 },
  ]);
  assert.throws(() => parseLevelsLines(`${data}\nnot json`), /line 2: not JSON/);
  assert.throws(() => parseLevelsLines(JSON.stringify({ all_expiry: {}, spot: { spot_price: 1 } })), /line 1: no computed_at/);
  assert.throws(
    () => parseLevelsLines(JSON.stringify({ data: { all_expiry: {} }, meta: { computed_at: '2026-01-01T00:00:00Z' } })),
    /line 1: no spot price/,
  );
});

/** The definitions read literally (a scan of every path per level, a log per path point): what levelStudy must equal. */
function literalStudy(snaps: readonly StudySnapshot[], o: { from: number; to: number; horizonMs: number; stepMs: number }) {
  const kinds = ['hvl', 'call_resistance', 'put_support'] as const;
  const rate = (a: number, b: number): number | null => (b > 0 ? a / b : null);
  const tallies = kinds.map(() => ({ n: 0, dist: 0, t: 0, h: 0, mt: 0, mh: 0 }));
  const reg = [0, 0, 0, 0].map(() => ({ count: 0, sum: 0 }));
  let instants = 0;
  let missing = 0;
  const hit = (s: number, l: number, path: readonly number[]): [boolean, boolean] => {
    const side = Math.sign(s - l);
    const touched = path.some((p) => (p - l) * side <= 0);
    return [touched, touched && ((path.at(-1) as number) - l) * side > 0];
  };
  for (let at = Math.ceil(o.from / o.stepMs) * o.stepMs; at <= Math.floor((o.to - o.horizonMs) / o.stepMs) * o.stepMs; at += o.stepMs) {
    instants++;
    const i = snaps.findLastIndex((x) => x.t <= at);
    const sn = snaps[i];
    const path = snaps.filter((x) => x.t > at && x.t <= at + o.horizonMs).map((x) => x.spot);
    if (sn === undefined || at - sn.t > 30_000 || path.length === 0) {
      missing++;
      continue;
    }
    kinds.forEach((k, n) => {
      const l = sn[k];
      const tl = tallies[n] as (typeof tallies)[number];
      if (l === null || l === sn.spot) return;
      tl.n++;
      tl.dist += Math.abs(sn.spot - l) / sn.spot;
      const [t, h] = hit(sn.spot, l, path);
      const [mt, mh] = hit(sn.spot, 2 * sn.spot - l, path);
      tl.t += Number(t);
      tl.h += Number(h);
      tl.mt += Number(mt);
      tl.mh += Number(mh);
    });
    const rv = realizedVol(sn.spot, path, o.horizonMs / 1000);
    const into = [sn.net_gex !== null && sn.net_gex > 0, sn.net_gex !== null && sn.net_gex < 0, sn.hvl !== null && sn.spot > sn.hvl];
    into.push(sn.hvl !== null && sn.spot < sn.hvl);
    into.forEach((yes, n) => {
      if (!yes) return;
      const g = reg[n] as (typeof reg)[number];
      g.count++;
      g.sum += rv;
    });
  }
  const outcome = (tl: (typeof tallies)[number]) => {
    const hold = rate(tl.h, tl.t);
    const placeboHold = rate(tl.mh, tl.mt);
    return {
      instants: tl.n,
      touched: tl.t,
      held: tl.h,
      touch_rate: rate(tl.t, tl.n),
      hold_rate: hold,
      broke: tl.t - tl.h,
      mean_distance: rate(tl.dist, tl.n),
      placebo: { touched: tl.mt, held: tl.mh, touch_rate: rate(tl.mt, tl.n), hold_rate: placeboHold },
      edge: hold === null || placeboHold === null ? null : hold - placeboHold,
    };
  };
  const regime = (n: number) => ({ count: reg[n]?.count ?? 0, mean_rv: rate(reg[n]?.sum ?? 0, reg[n]?.count ?? 0) });
  return {
    from: new Date(o.from).toISOString(),
    to: new Date(o.to).toISOString(),
    horizon_seconds: o.horizonMs / 1000,
    step_seconds: o.stepMs / 1000,
    instants,
    missing,
    levels: { hvl: outcome(tallies[0] as never), call_resistance: outcome(tallies[1] as never), put_support: outcome(tallies[2] as never) },
    regimes: { net_gex_positive: regime(0), net_gex_negative: regime(1), spot_above_hvl: regime(2), spot_below_hvl: regime(3) },
  };
}

test('equals the definitions read literally on a seeded random walk with gaps, nulls and levels near spot (exact)', () => {
  let seed = 42;
  const rnd = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const snaps: StudySnapshot[] = [];
  let s = 100;
  for (let k = 0; k < 4_000; k++) {
    if (k % 500 > 480) continue; // gaps: missing instants
    s *= Math.exp((rnd() - 0.5) * 0.004);
    const lvl = (d: number): number | null => (rnd() < 0.05 ? null : Math.round(s * (1 + d * rnd()) * 10) / 10);
    snaps.push({ t: k * 30_000, spot: s, hvl: lvl(0.01), call_resistance: lvl(0.02), put_support: lvl(-0.02), net_gex: rnd() - 0.5 });
  }
  for (const [step, horizon] of [
    [30, 240],
    [5, 60],
    [60, 30],
  ] as const) {
    const o = { from: 0, to: 4_000 * 30_000, horizonMs: horizon * M, stepMs: step * M };
    const r = levelStudy(snaps, o);
    assert.deepEqual(r, literalStudy(snaps, o));
    assert.ok(r.levels.hvl.touched > 10 && r.levels.hvl.touched < r.levels.hvl.instants, `touches ${r.levels.hvl.touched}`);
  }
});
