import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clean, ivFromPercent, mul, numValue } from './parse-helpers.ts';

const roundTrip = (x: number): number => Number(x.toPrecision(15));

test('clean removes binary noise from products and quotients (hand-checked)', () => {
  assert.equal(clean(0.7844000000000001), 0.7844);
  assert.equal(mul(0.1, 3), 0.3);
  assert.equal(mul(0.007, 56151.63), 393.06141);
  assert.equal(mul(1420, 1.54), 2186.8);
  assert.equal(clean(2000 / 9598.5), 0.208365890503725); // 0.2083658905037245...: 15th digit rounds up
  assert.equal(ivFromPercent(78.44), 0.7844);
  assert.equal(clean(48938.5), 48938.5);
  assert.equal(clean(-0.30000000000000004), -0.3);
  assert.equal(clean(0.001), 0.001);
  assert.equal(clean(0.1 + 0.2), 0.3);
});

test('clean keeps values outside the fast range and special values as the 15-digit string round trip does', () => {
  assert.equal(clean(2 ** 61), 2.30584300921369e18); // 2305843009213693952
  assert.equal(clean(2 ** -30), 9.31322574615479e-10); // 9.313225746154785e-10
  assert.ok(Object.is(clean(-0), 0));
  assert.ok(Number.isNaN(clean(Number.NaN)));
  assert.equal(clean(Number.POSITIVE_INFINITY), Number.POSITIVE_INFINITY);
});

test('clean just below a power of ten keeps its 15th digit (log10 rounds up there)', () => {
  assert.equal(clean(0.00000999999999999999), 0.00000999999999999999);
  assert.equal(clean(0.0000999999999999999), 0.0000999999999999999);
  assert.equal(clean(999999999999999.9), 1e15);
});

test('clean at an exact 15-digit tie rounds half up, like toPrecision', () => {
  assert.equal(clean(100000000000000.5), 100000000000001);
  assert.equal(clean(-100000000000000.5), -100000000000001);
});

test('clean equals Number(x.toPrecision(15)) on decimals, products, quotients and neighbours of powers of ten', () => {
  let seed = 42;
  const next = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const decimal = (): number => {
    let digits = '';
    const n = 1 + Math.floor(next() * 17);
    for (let i = 0; i < n; i++) digits += String(Math.floor(next() * 10));
    return Number(`${digits}e${Math.floor(next() * 30) - 15}`);
  };
  const values: number[] = [];
  for (let i = 0; i < 50_000; i++) {
    const a = decimal();
    const b = decimal();
    values.push(a, -a, a * b, a / (b === 0 ? 1 : b), a / 100);
  }
  for (let e = -8; e <= 16; e++) {
    const p = Number(`1e${e}`);
    for (let k = 1; k <= 40; k++) values.push(p * (1 - k * 2 ** -53), p * (1 + k * 2 ** -52));
  }
  for (const x of values) assert.ok(Object.is(clean(x), roundTrip(x)), `clean(${x}) = ${clean(x)}, expected ${roundTrip(x)}`);
});

test('numValue reads JSON numbers and decimal strings as Number does, null for non-finite or empty', () => {
  assert.equal(numValue('2693.52'), 2693.52);
  assert.equal(numValue('0.001'), 0.001);
  assert.equal(numValue('-.5'), -0.5);
  assert.equal(numValue('1.'), 1);
  assert.equal(numValue('00012'), 12);
  assert.ok(Object.is(numValue('-0'), -0));
  assert.equal(numValue('1e3'), 1000);
  assert.equal(numValue(' 7 '), 7);
  assert.equal(numValue('+7'), 7);
  assert.equal(numValue('0.1234567890123456789'), 0.12345678901234568);
  assert.equal(numValue(42), 42);
  for (const bad of ['', '-', '.', '1.2.3', 'abc', 'Infinity', '1e999', null, undefined, true, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.equal(numValue(bad), null, String(bad));
  }
});

test('numValue equals Number(s) on random decimal strings of 1 to 18 digits', () => {
  let seed = 7;
  const next = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let i = 0; i < 50_000; i++) {
    let digits = '';
    const n = 1 + Math.floor(next() * 18);
    for (let k = 0; k < n; k++) digits += String(Math.floor(next() * 10));
    const cut = Math.floor(next() * (n + 1));
    const s = `${next() < 0.2 ? '-' : ''}${digits.slice(0, cut)}.${digits.slice(cut)}`;
    for (const text of [s, digits]) assert.ok(Object.is(numValue(text), Number(text)), `numValue(${text})`);
  }
});
