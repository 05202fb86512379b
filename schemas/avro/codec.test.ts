import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { rabinFingerprint64 } from './rabin-fingerprint.ts';
import { AvroCodec, AvroDecodeError, canonicalFingerprint, parseAvroType } from './codec.ts';
import { EVENT_SCHEMAS, AVRO_FAMILIES } from './event-schemas.ts';

const fp = (s: string): bigint => BigInt.asIntN(64, rabinFingerprint64(Buffer.from(s, 'utf8')));

describe('CRC-64-AVRO fingerprint', () => {
  test('matches the Avro specification vectors (share/test/data/schema-tests.txt)', () => {
    assert.equal(fp('"null"'), 7195948357588979594n);
    assert.equal(fp('"boolean"'), -6970731678124411036n);
    assert.equal(fp('"int"'), 8247732601305521295n);
    assert.equal(fp('"long"'), -3434872931120570953n);
    assert.equal(fp('"string"'), -8142146995180207161n);
    assert.equal(fp('{"name":"foo","type":"fixed","size":15}'), 1756455273707447556n);
  });

  test('fingerprints the parsing canonical form, not the written JSON', () => {
    const t = parseAvroType({ type: 'record', name: 'foo', doc: 'ignored', fields: [{ name: 'f1', type: 'boolean' }] });
    assert.equal(BigInt.asIntN(64, canonicalFingerprint(t)), 7843277075252814651n);
  });
});

describe('single-object encoding', () => {
  const codec = new AvroCodec();
  const trade = {
    venue: 'deribit',
    symbol: 'BTCUSDT',
    ts: 1_700_000_000_123,
    receivedAt: 1_700_000_000_456,
    id: 'deribit:137488100',
    instrument: 'BTC-26MAR21-62000-C',
    strike: 62000,
    expiry: 1_616_745_600_000,
    optionType: 'call',
    price: 0.007,
    priceCurrency: 'BTC',
    priceUsd: 393.06141,
    size: 0.1,
    premiumUsd: 39.306141,
    side: 'buy',
    iv: 0.7844,
    indexPrice: 56151.63,
    underlyingPrice: null,
    tradeId: '137488100',
    block: false,
  };

  test('header is C3 01 + the little-endian fingerprint of the writer schema', () => {
    const buf = codec.encode('option_trade', trade);
    assert.equal(buf[0], 0xc3);
    assert.equal(buf[1], 0x01);
    assert.equal(buf.readBigUInt64LE(2), codec.fingerprint('option_trade'));
    assert.equal(codec.fingerprint('option_trade'), canonicalFingerprint(parseAvroType(EVENT_SCHEMAS.option_trade)));
  });

  test('round-trips every field, nulls included', () => {
    const d = codec.decode(codec.encode('option_trade', trade));
    assert.equal(d.family, 'option_trade');
    assert.deepEqual({ ...(d.value as object) }, trade);
  });

  test('messages written into the shared encode pool stay intact across pool rollovers; a huge one still encodes', () => {
    const c = new AvroCodec();
    const bufs: Buffer[] = [];
    for (let i = 0; i < 20_000; i++) bufs.push(c.encode('option_trade', { ...trade, id: `deribit:${i}`, size: i + 0.5 }));
    const huge = c.encode('option_trade', { ...trade, id: 'x'.repeat(600_000) });
    bufs.push(c.encode('option_trade', { ...trade, id: 'after-huge' }));
    const total = bufs.reduce((n, b) => n + b.length, 0);
    assert.ok(total > 3 * 256 * 1024, `spans several pools (${total} bytes)`);
    bufs.slice(0, 20_000).forEach((b, i) => {
      const v = c.decodeAs<{ id: string; size: number }>('option_trade', b);
      assert.equal(v.id, `deribit:${i}`);
      assert.equal(v.size, i + 0.5);
    });
    assert.equal(c.decodeAs<{ id: string }>('option_trade', huge).id.length, 600_000);
    assert.equal(c.decodeAs<{ id: string }>('option_trade', bufs[20_000] as Buffer).id, 'after-huge');
    assert.deepEqual(c.encode('option_trade', trade), Buffer.concat([c.encode('option_trade', trade)]), 'same bytes every time');
  });

  test('every family has a distinct fingerprint', () => {
    const fps = new Set(AVRO_FAMILIES.map((f) => codec.fingerprint(f)));
    assert.equal(fps.size, AVRO_FAMILIES.length);
  });

  test('timestamp-millis rejects a non-integer instant', () => {
    assert.throws(() => codec.encode('option_trade', { ...trade, ts: 1.5 }));
  });

  test('bad bytes are a typed error, never a crash', () => {
    assert.throws(() => codec.decode(Buffer.from('{"json":true}')), AvroDecodeError);
    const unknown = Buffer.alloc(12);
    unknown[0] = 0xc3;
    unknown[1] = 0x01;
    assert.throws(() => codec.decode(unknown), /unknown writer schema/);
    const good = codec.encode('option_trade', trade);
    assert.throws(() => codec.decode(good.subarray(0, 20)), AvroDecodeError);
  });
});

describe('schema evolution', () => {
  // The OptionTrade record as an older producer wrote it: no `underlyingPrice`, no `block`, and `iv` still a
  // plain nullable double. The current reader adds both fields with defaults (null, false).
  const OLD_OPTION_TRADE = {
    type: 'record',
    name: 'OptionTrade',
    namespace: 'gex.md',
    fields: (EVENT_SCHEMAS.option_trade.fields as readonly { name: string }[]).filter(
      (f) => f.name !== 'underlyingPrice' && f.name !== 'block',
    ),
  };

  test('a reader on the newer schema decodes events written with the older one', () => {
    const writerCodec = new AvroCodec({ ...EVENT_SCHEMAS, option_trade: OLD_OPTION_TRADE }, []);
    const readerCodec = new AvroCodec();
    const oldFp = readerCodec.registerWriter('option_trade', OLD_OPTION_TRADE);
    assert.notEqual(oldFp, readerCodec.fingerprint('option_trade'));

    const oldEvent = {
      venue: 'okx',
      symbol: 'ETHUSDT',
      ts: 1_672_286_551_080,
      receivedAt: 1_672_286_551_100,
      id: 'okx:38',
      instrument: 'ETH-USD-230224-1800-C',
      strike: 1800,
      expiry: 1_677_225_600_000,
      optionType: 'call',
      price: 0.045,
      priceCurrency: 'ETH',
      priceUsd: 74.4,
      size: 2,
      premiumUsd: 148.8,
      side: 'sell',
      iv: 0.5066,
      indexPrice: 1653.72,
      tradeId: '38',
    };
    const bytes = writerCodec.encode('option_trade', oldEvent);
    const d = readerCodec.decode(bytes);
    assert.equal(d.family, 'option_trade');
    assert.deepEqual({ ...(d.value as object) }, { ...oldEvent, underlyingPrice: null, block: false });
  });

  test('an incompatible writer (a removed field without default) is refused at registration', () => {
    const codec = new AvroCodec();
    const bad = { type: 'record', name: 'OptionTrade', namespace: 'gex.md', fields: [{ name: 'venue', type: 'int' }] };
    assert.throws(() => codec.registerWriter('option_trade', bad));
  });
});
