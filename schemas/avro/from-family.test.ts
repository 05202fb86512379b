import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AvroCodec, canonicalFingerprint, parseAvroType } from './codec.ts';
import { AVRO_FAMILIES, EVENT_SCHEMAS } from './event-schemas.ts';
import { V1_EVENT_SCHEMAS } from './writer-history-v1.ts';
import { avroRecord } from './from-family.ts';
import { added, family, optional, double, arrayOf, long, string } from '../family-dsl.ts';

/** One sample value per family (every optional both set and null across the samples of the codec tests). */
const base = { venue: 'deribit', symbol: 'BTCUSDT', ts: 1_700_000_000_123, receivedAt: 1_700_000_000_456, id: 'x1' };
const SAMPLES = {
  instrument: {
    ...base,
    instrument: 'BTC-26MAR21-62000-C',
    kind: 'option',
    strike: 62000,
    expiry: 1_616_745_600_000,
    optionType: 'call',
    contractSize: 1,
    settlementCurrency: 'BTC',
    quoteCurrency: 'USD',
    active: true,
  },
  option_trade: {
    ...base,
    instrument: 'BTC-26MAR21-62000-C',
    strike: 62000,
    expiry: 1_616_745_600_000,
    optionType: 'put',
    price: 0.007,
    priceCurrency: 'BTC',
    priceUsd: 393.06141,
    size: 0.1,
    premiumUsd: 39.306141,
    side: 'sell',
    iv: 0.7844,
    indexPrice: null,
    underlyingPrice: 56151.63,
    tradeId: '137488100',
    block: true,
  },
  option_ticker: {
    ...base,
    instrument: 'BTC-26MAR21-62000-C',
    strike: 62000,
    expiry: 1_616_745_600_000,
    optionType: 'call',
    markPrice: 985,
    markIv: 0.51,
    bidIv: null,
    askIv: 0.55,
    delta: 0.41,
    gamma: 0.00007,
    vega: 30.1,
    theta: -40.2,
    openInterest: 12.5,
    underlyingPrice: null,
    indexPrice: 28150,
  },
  linear_trade: { ...base, market: 'spot', instrument: 'BTCUSDT', price: 28199, size: 1.5, side: 'buy', tradeId: 's1' },
  perp_stats: {
    ...base,
    instrument: 'BTCUSDT',
    openInterest: 50_000,
    openInterestUsd: null,
    fundingRate: 0.0001,
    nextFundingTime: 1_680_681_600_000,
    markPrice: 28201,
    indexPrice: null,
  },
  liquidation: { ...base, instrument: 'BTCUSDT', side: 'short', price: 28000, size: 3 },
  index: { ...base, kind: 'vol_index', name: 'btcdvol_usdc', value: 54.3 },
  dead_letter: { venue: 'okx', channel: 'trades', reason: 'bad', raw: 'AAEC', encoding: 'base64', receivedAt: 1_700_000_000_456, id: 'd1' },
  snapshot: { symbol: 'ETHUSDT', kind: 'levels', computedAt: 1_700_000_010_000, payload: '{"a":1}', id: 's1' },
} as const;

type Fields = readonly Readonly<Record<string, unknown>>[];
const fieldsOf = (schema: object): Fields => (schema as { fields: Fields }).fields;
/** The v1 schema unchanged, or extended only as the evolution rule allows (optional fields appended). */
function evolvedFromV1(f: (typeof AVRO_FAMILIES)[number]): boolean {
  const v1 = fieldsOf(V1_EVENT_SCHEMAS[f]);
  const now = fieldsOf(EVENT_SCHEMAS[f]);
  assert.deepEqual({ ...EVENT_SCHEMAS[f], fields: now.slice(0, v1.length) }, V1_EVENT_SCHEMAS[f], `${f}: v1 part changed`);
  for (const added of now.slice(v1.length))
    assert.equal(added['default'], null, `${f}.${String(added['name'])}: an added field must be optional`);
  return now.length > v1.length;
}

test('generated schemas are the v1 hand-written ones (same JSON, canonical form, fingerprint), or extend them additively', () => {
  const unchanged = AVRO_FAMILIES.filter((f) => !evolvedFromV1(f));
  for (const f of unchanged) {
    assert.deepEqual(EVENT_SCHEMAS[f], V1_EVENT_SCHEMAS[f], f);
    const generated = parseAvroType(EVENT_SCHEMAS[f]);
    const v1 = parseAvroType(V1_EVENT_SCHEMAS[f]);
    assert.equal(JSON.stringify(generated.schema()), JSON.stringify(v1.schema()), f);
    assert.equal(canonicalFingerprint(generated), canonicalFingerprint(v1), f);
  }
});

test('unchanged families encode to the v1 bytes; v1 bytes of every family decode with the current codec', () => {
  const current = new AvroCodec();
  const v1 = new AvroCodec(V1_EVENT_SCHEMAS, []);
  for (const f of AVRO_FAMILIES) {
    const old = v1.encode(f, SAMPLES[f]);
    const decoded = current.decodeAs<Record<string, unknown>>(f, old);
    assert.deepEqual(Object.fromEntries(Object.keys(SAMPLES[f]).map((k) => [k, decoded[k]])), SAMPLES[f], f);
    if (evolvedFromV1(f)) continue;
    assert.deepEqual(Buffer.from(current.encode(f, SAMPLES[f])), Buffer.from(old), f);
    assert.equal(current.fingerprint(f), v1.fingerprint(f), f);
  }
});

test('the logical types map to Avro as declared (long, array, optional array, defaults)', () => {
  const decl = family({
    record: 'T',
    namespace: 'x',
    doc: 'test record',
    fields: [long('n'), arrayOf(double('xs')), optional(arrayOf(string('tags'))), string('s', { avroDefault: '' })],
  });
  assert.deepEqual(avroRecord(decl), {
    type: 'record',
    name: 'T',
    namespace: 'x',
    fields: [
      { name: 'n', type: 'long' },
      { name: 'xs', type: { type: 'array', items: 'double' } },
      { name: 'tags', type: ['null', { type: 'array', items: 'string' }], default: null },
      { name: 's', type: 'string', default: '' },
    ],
  });
  const codec = parseAvroType(avroRecord(decl));
  const v = { n: 5, xs: [1.5, -2], tags: null, s: 'a' };
  assert.deepEqual({ ...(codec.fromBuffer(codec.toBuffer(v)) as object) }, v);
});

test('a field added after v1 must come after every v1 field', () => {
  const ok = family({ record: 'A', namespace: 'x', doc: 'ok', fields: [long('n'), added(optional(double('x')))] });
  assert.deepEqual(avroRecord(ok).fields, [
    { name: 'n', type: 'long' },
    { name: 'x', type: ['null', 'double'], default: null },
  ]);
  const bad = family({ record: 'B', namespace: 'x', doc: 'bad', fields: [added(optional(double('x'))), long('n')] });
  assert.throws(() => avroRecord(bad), /B: fields added after v1 must come after every v1 field/);
});
