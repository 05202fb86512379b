import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contractGex } from './gex.ts';
import { gamma } from './black76.ts';
import { buildVenueRows } from './snapshot-row.ts';
import { STRESS_SHOCKS_PCT, modelProfile, shockValues, sumArrays, zeroGammaOf } from './stress.ts';
import { chain115, chainOf, inst } from './testing/test-chains.ts';

test('§11.5 chain: shock 0 = net GEX +$2,230,237, zero gamma 98,988.13', () => {
  const [row] = buildVenueRows(chain115());
  assert.ok(row !== undefined);
  const s = shockValues(row.profile_std);
  assert.deepEqual(STRESS_SHOCKS_PCT, [-20, -15, -10, -5, 0, 5, 10, 15, 20]);
  assert.ok(Math.abs((s[4] as number) - 2_230_237) < 1, `shock 0 ${s[4]}`);
  const p = modelProfile(row, 'std');
  const z = zeroGammaOf(p.values, p.slopes, 100_000);
  assert.ok(z.level !== null && Math.abs(z.level - 98_988.13) < 0.01, `zero gamma ${z.level}`);
  assert.equal(z.reason, null);
});

test('a shock re-prices F and S by (1 + x): one long call, hand-computed at −20 % and +10 %', () => {
  const [row] = buildVenueRows(chainOf([inst(100_000, 'call', 10)]));
  assert.ok(row !== undefined);
  const s = shockValues(row.profile_std);
  const t = 7 / 365;
  const at = (x: number): number => contractGex(gamma(100_000 * (1 + x), 100_000, 0.5, t), 10, 100_000 * (1 + x));
  assert.ok(Math.abs((s[0] as number) / at(-0.2) - 1) < 1e-12, `−20 %: ${s[0]} vs ${at(-0.2)}`);
  assert.ok(Math.abs((s[6] as number) / at(0.1) - 1) < 1e-12, `+10 %: ${s[6]} vs ${at(0.1)}`);
  const p = modelProfile(row, 'std');
  assert.deepEqual(zeroGammaOf(p.values, p.slopes, 100_000), { level: null, reason: 'positive_everywhere' });
  assert.deepEqual(zeroGammaOf(new Array<number>(201).fill(0), new Array<number>(201).fill(0), 1), { level: null, reason: 'no_gamma' });
});

test('sumArrays adds venue rows element-wise', () => {
  assert.deepEqual(
    sumArrays(
      [
        [1, 2],
        [3, 4],
      ],
      2,
    ),
    [4, 6],
  );
  assert.deepEqual(sumArrays([], 3), [0, 0, 0]);
});
