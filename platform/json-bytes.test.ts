/**
 * JsonBytes against the functions whose text it writes as bytes: JSON.stringify (numbers, strings) and
 * Date.prototype.toISOString (instants), value by value, over hand-picked edges and a spread of values (a Weyl
 * sequence: the same every run); and a buffer grown while written keeps what was written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { digitCount, isoLength, JsonBytes } from './json-bytes.ts';

/** What `write` puts in a fresh buffer, as text. */
function written(write: (out: JsonBytes) => void): string {
  const out = new JsonBytes(4);
  write(out);
  return out.buf.toString('utf8', 0, out.pos);
}

/** Values spread over [0, 1): the fractional parts of multiples of the golden ratio, from `seed` on. */
function spread(seed: number): () => number {
  let i = seed;
  return () => (++i * 0.6180339887498949) % 1;
}

test('number: JSON.stringify of the number', () => {
  const edges = [
    0,
    -0,
    1,
    -1,
    9,
    10,
    99,
    100,
    2 ** 53 - 1,
    -(2 ** 53 - 1),
    2 ** 53,
    2 ** 53 + 2,
    1e21,
    1e-7,
    1e-6,
    0.1,
    0.1 + 0.2,
    123.045,
    -12.5,
    5e-324,
    Number.MAX_VALUE,
    Number.NaN,
    Infinity,
    -Infinity,
    100_000,
    95_000.5,
  ];
  const next = spread(7);
  const values = [...edges];
  for (let i = 0; i < 2000; i++) {
    const x = next();
    values.push(Math.round(x * 1e6), x * 10 ** Math.floor(next() * 30 - 10), -Math.round(x * 1e15), Math.round(x * 1e4) / 1e4);
  }
  for (const x of values)
    assert.equal(
      written((o) => o.number(x)),
      JSON.stringify(x),
      String(x),
    );
  assert.equal(
    written((o) => o.nullableNumber(null)),
    'null',
  );
});

test('number: a decimal of up to 15 significant digits, written from its digits, is JSON.stringify of the number', () => {
  // Every value ingest stores is such a decimal's double (parse-helpers.ts clean); hand-picked edges next to powers of
  // ten, the 1e-6 bound where String switches to an exponent, 15 and 16 digits (16 takes String's own text).
  const edges = [
    0.5,
    -0.5,
    0.0057,
    1505.413475,
    97123.45,
    0.000001,
    0.0000015,
    9.99999999999999e-7,
    0.00000999999999999999,
    0.999999999999999,
    9.99999999999999,
    99999999999999.9,
    999999999999999.9,
    123456789012345e-10,
    1234567890123456e-10,
    0.1 + 0.2,
    1 / 3,
    -2 / 3,
    Math.PI,
    4.35,
    0.45,
    100000.25,
  ];
  const next = spread(11);
  const values: number[] = [...edges];
  for (let i = 0; i < 3000; i++) {
    const digits = 1 + Math.floor(next() * 15);
    const exponent = Math.floor(next() * 23) - 8;
    const x = Number((next() * 10 ** exponent).toPrecision(digits));
    values.push(x, -x, Number((x * (1 + next())).toPrecision(15)), x * (1 + next()));
  }
  let fromDigits = 0;
  for (const x of values) {
    assert.equal(
      written((o) => o.number(x)),
      JSON.stringify(x),
      String(x),
    );
    const a = Math.abs(x);
    if (
      !Number.isInteger(x) &&
      a >= 1e-6 &&
      a < 1e15 &&
      String(x)
        .replace(/^[-0.]+/, '')
        .replace('.', '').length <= 15
    )
      fromDigits++;
  }
  assert.ok(fromDigits > 5000, `${fromDigits} values of up to 15 digits`);
});

test('uint and digitCount: the digits of a non-negative safe integer', () => {
  for (const n of [0, 1, 9, 10, 11, 99, 100, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 9, 4_294_967_295, 4_294_967_296, 2 ** 53 - 1]) {
    assert.equal(
      written((o) => o.uint(n)),
      String(n),
    );
    assert.equal(digitCount(n), String(n).length);
  }
});

test('iso: Date.prototype.toISOString of the instant, and isoLength its length', () => {
  const edges = [
    0, 1, 999, 1000, 59_999, 86_399_999, 86_400_000, -1, -86_400_000, 951_782_400_000 /* 2000-02-29 */,
    4_107_542_399_999 /* 2100-02-28T23:59:59.999 */, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15, 1.5, 1_700_000_000_000.9,
  ];
  const next = spread(11);
  const values = [...edges];
  for (let i = 0; i < 5000; i++) values.push(Math.floor(next() * 253_402_300_800_000), Math.floor(1.7e12 + next() * 1e11));
  // Every day of 1970-2200 (leap days, the centuries, month ends), at an instant in it.
  for (let day = 0; day < 84_000; day++) values.push(day * 86_400_000 + Math.floor(next() * 86_400_000));
  for (const ms of values) {
    const iso = new Date(ms).toISOString();
    assert.equal(
      written((o) => o.iso(ms)),
      iso,
      String(ms),
    );
    assert.equal(isoLength(ms), iso.length, String(ms));
  }
  // Into one buffer, as a tape is written (the last seconds and days are kept): alternating days and seconds (a trade's
  // time and its expiry), then a third; instants in the same second, the one before, the one before that, or anew.
  const sequence = [0, 86_400_000 * 400, 1, 86_400_000 * 400 + 1, 86_400_000 * 9000, 999, 1000, 86_400_000 * 400 + 999];
  for (let i = 0; i < 3000; i++) {
    const r = next();
    const back = sequence[sequence.length - (r < 0.5 ? 1 : r < 0.8 ? 2 : 3)] as number;
    sequence.push(r < 0.4 ? back - (back % 1000) + Math.floor(next() * 1000) : r < 0.9 ? back : Math.floor(1.7e12 + next() * 1e11));
  }
  assert.equal(
    written((o) => {
      for (const ms of sequence) o.iso(ms);
    }),
    sequence.map((ms) => new Date(ms).toISOString()).join(''),
  );
});

test('jsonText and jsonUtf8: JSON.stringify of the text; allAscii tells whether a byte >= 0x80 was written', () => {
  const texts = [
    '',
    'deribit',
    'a"b',
    'back\\slash',
    '\u0000\u001f',
    '\n\t\r\b\f',
    '\u007f',
    'é',
    '€𝄞',
    '\u2028\u2029',
    '\ud800',
    'x\udc00y',
  ];
  for (const s of texts) {
    assert.equal(
      written((o) => o.jsonText(s)),
      JSON.stringify(s),
      JSON.stringify(s),
    );
    const bytes = Buffer.concat([Buffer.from('..'), Buffer.from(s, 'utf8'), Buffer.from('..')]);
    const decoded = bytes.toString('utf8', 2, bytes.length - 2);
    assert.equal(
      written((o) => o.jsonUtf8(bytes, 2, bytes.length - 2)),
      JSON.stringify(decoded),
      JSON.stringify(s),
    );
  }
  const ascii = new JsonBytes();
  ascii.jsonText('okx');
  ascii.utf8('plain');
  assert.equal(ascii.allAscii, true);
  const wide = new JsonBytes();
  wide.jsonText('é');
  assert.equal(wide.allAscii, false);
  wide.reset();
  assert.equal(wide.allAscii, true);
  assert.equal(wide.pos, 0);
});

test('a buffer grown while written keeps what was written; a view of the old buffer keeps its bytes', () => {
  const out = new JsonBytes(8);
  out.text('{"a":');
  const before = out.buf;
  out.raw(Buffer.alloc(100, 0x61));
  out.text('}');
  assert.notEqual(out.buf, before);
  assert.equal(out.buf.toString('latin1', 0, out.pos), `{"a":${'a'.repeat(100)}}`);
  assert.equal(before.toString('latin1', 0, 5), '{"a":');
});
