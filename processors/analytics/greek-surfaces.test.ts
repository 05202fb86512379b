import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareChain } from './gex.ts';
import { dollarExposure, unitGreek } from './greek-exposure.ts';
import { greekExposures } from './greeks-data.ts';
import { greekSurfaces, surface3d } from './greek-surfaces.ts';
import { DAY_MS, chainOf, inst } from './testing/test-chains.ts';

function near(got: number | null | undefined, want: number, tol: number, what: string): void {
  assert.ok(typeof got === 'number' && Math.abs(got - want) <= tol, `${what}: got ${got}, want ${want} ± ${tol}`);
}

const chain = chainOf([
  inst(100_000, 'call', 5),
  inst(100_000, 'put', 5, { venue: 'okx', markIv: 0.7 }),
  inst(110_000, 'call', 2),
  inst(90_000, 'put', 8, { expiry: 30 * DAY_MS, markIv: 0.6 }),
  inst(110_000, 'put', 1, { expiry: 30 * DAY_MS, markIv: null }),
]);
const base = { symbol: chain.symbol, now: 0, spot: 100_000, open: prepareChain(chain).open, model: 'std' as const, breakdown: true };
const vega = (k: number, s: number, t: number, q: number): number =>
  dollarExposure('vega', unitGreek('vega', 'call', 100_000, k, s, t), q, 100_000);

describe('greek surfaces', () => {
  test('per-expiry curves over strikes, venue nets', () => {
    const d = greekSurfaces({ ...base, greek: 'vega' });
    assert.equal(d.unit, 'usd_per_vol_point');
    assert.deepEqual(
      d.expiries.map((e) => [e.dte, e.strikes]),
      [
        [7, [100_000, 110_000]],
        [30, [90_000, 110_000]],
      ],
    );
    const e7 = d.expiries[0];
    // Dealer long 5 calls, short 5 puts at 100k: vega 5·v(0.5) − 5·v(0.7).
    near(e7?.net[0], vega(100_000, 0.5, 7 / 365, 5) + vega(100_000, 0.7, 7 / 365, -5), 1e-9, '100k net');
    near(e7?.call[1], vega(110_000, 0.5, 7 / 365, 2), 1e-9, '110k call');
    assert.deepEqual(
      e7?.by_venue?.map((v) => v.venue),
      ['deribit', 'okx'],
    );
    near(e7?.by_venue?.[1]?.net[0], vega(100_000, 0.7, 7 / 365, -5), 1e-9, 'okx 100k');
    assert.equal(e7?.by_venue?.[1]?.net[1], 0);
    // The curves add up to the by-expiry totals of the greeks route.
    const flat = greekExposures({ ...base, greek: 'vega' });
    d.expiries.forEach((e, i) =>
      near(
        e.net.reduce((a, b) => a + b, 0),
        flat.by_expiry[i]?.net ?? NaN,
        1e-9,
        'sum',
      ),
    );
    assert.equal(d.expiries[1]?.net[1], 0, 'no IV -> 0 but strike kept');
  });
  test('3-D grid of exposure and of IV; null where nothing is listed', () => {
    const g = surface3d({ ...base, metric: 'vega' });
    assert.deepEqual(g.strikes, [90_000, 100_000, 110_000]);
    assert.deepEqual(g.dte, [7, 30]);
    assert.equal(g.values[0]?.[0], null);
    near(g.values[1]?.[0], vega(90_000, 0.6, 30 / 365, -8), 1e-9, '90k 30d');
    assert.equal(g.positioning, 'std');
    const iv = surface3d({ ...base, metric: 'iv' });
    assert.equal(iv.positioning, null);
    near(iv.values[0]?.[1], 0.6, 1e-15, 'mean of 0.5 and 0.7');
    assert.equal(iv.values[1]?.[2], null, 'only a no-IV contract');
    assert.equal(iv.values[0]?.[0], null);
  });
  test('expiry filter', () => {
    const g = surface3d({ ...base, metric: 'iv', expiry: 30 * DAY_MS });
    assert.deepEqual(g.dte, [30]);
    assert.deepEqual(g.strikes, [90_000, 110_000]);
  });
});
