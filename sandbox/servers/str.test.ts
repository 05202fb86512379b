import { test } from 'node:test';
import assert from 'node:assert/strict';
import { str } from './host.ts';

const reference = (x: number, d: number): string => String(Number(x.toFixed(d)));

test('str prints without float noise', () => {
  assert.equal(str(0.1 + 0.2), '0.3');
  assert.equal(str(95123.45), '95123.45');
  assert.equal(str(0.0123456789, 4), '0.0123');
  assert.equal(str(1e-7), '1e-7');
  assert.equal(str(1e-9), '0');
  assert.equal(str(2_000_000_000.123), '2000000000.123');
  assert.equal(str(-0.5), '-0.5');
});

test('str equals rounding with toFixed on a wide random sample (its fast path changes nothing)', () => {
  let seed = 7;
  const rnd = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 50_000; i++) {
    const mag = 10 ** Math.floor(rnd() * 16 - 6);
    for (const v of [rnd() * mag, Math.round(rnd() * mag * 1e4) / 1e4, -rnd() * mag, 95_000 + rnd() * 10_000, 2e9 * rnd()]) {
      for (const d of [2, 4, 8]) assert.equal(str(v, d), reference(v, d), `${v} @ ${d}`);
    }
  }
});
