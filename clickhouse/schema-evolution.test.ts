import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { AvroCodec } from '#schemas/avro/codec.ts';
import { V1_EVENT_SCHEMAS } from '#schemas/avro/writer-history-v1.ts';
import type { OptionTicker } from '#schemas/events.ts';
import { migrate } from './migrate.ts';
import { optionTickerRow } from './rows.ts';
import type { Store } from './store.ts';
import * as fx from './testing/fixtures.ts';
import { openTempStore } from './testing/temp-store.ts';

/** The option-ticker fields added after v1 (schemas/families.ts, migration 050). */
const ADDED = [
  'priceCurrency',
  'bidPrice',
  'askPrice',
  'bidPriceUsd',
  'askPriceUsd',
  'bidSize',
  'askSize',
  'lastPrice',
  'lastPriceUsd',
  'volume24h',
] as const;
const ADDED_COLUMNS =
  'price_currency, bid_price, ask_price, bid_price_usd, ask_price_usd, bid_size, ask_size, last_price, last_price_usd, volume24h';

/** A v1 ticker (exactly the v1 fields: what a v1 producer wrote). */
const v1Ticker: OptionTicker = { ...fx.optionTicker, id: 'v1' };
const withBook: OptionTicker = {
  ...fx.optionTicker,
  id: 'v2',
  priceCurrency: 'USDC',
  bidPrice: 3.1,
  askPrice: 3.4,
  bidPriceUsd: 3.1,
  askPriceUsd: 3.4,
  bidSize: 25,
  askSize: 12.5,
  lastPrice: 3.3,
  lastPriceUsd: 3.3,
  volume24h: 410,
};

describe('schema evolution: fields added after v1 (option ticker book, migration 050)', () => {
  let store: Store;
  let dispose: () => Promise<void>;
  before(async () => {
    const t = await openTempStore();
    store = t.store;
    dispose = t.dispose;
    await migrate(store);
  });
  after(async () => dispose());

  test('v1-writer bytes decode with the current reader: v1 fields intact, added fields null', () => {
    const v1 = new AvroCodec(V1_EVENT_SCHEMAS, []);
    const current = new AvroCodec();
    const bytes = v1.encode('option_ticker', v1Ticker);
    assert.notEqual(current.fingerprint('option_ticker'), v1.fingerprint('option_ticker'));
    const decoded = current.decodeAs<Record<string, unknown>>('option_ticker', bytes);
    for (const [k, v] of Object.entries(v1Ticker)) assert.deepEqual(decoded[k], v, k);
    for (const k of ADDED) assert.equal(decoded[k], null, k);
  });

  test('an event that omits the added fields encodes (as null) and one that sets them round-trips', () => {
    const codec = new AvroCodec();
    const omitted = codec.decodeAs<Record<string, unknown>>('option_ticker', codec.encode('option_ticker', v1Ticker));
    for (const k of ADDED) assert.equal(omitted[k], null, k);
    const set = codec.decodeAs<Record<string, unknown>>('option_ticker', codec.encode('option_ticker', withBook));
    for (const k of ADDED) assert.equal(set[k], withBook[k], k);
  });

  test('a decoded v1 event and an event without the fields store NULL columns; set fields store their values', async () => {
    const decoded = new AvroCodec().decodeAs<OptionTicker>(
      'option_ticker',
      new AvroCodec(V1_EVENT_SCHEMAS, []).encode('option_ticker', v1Ticker),
    );
    const omitted: OptionTicker = { ...v1Ticker, id: 'v1-omitted' };
    const row = optionTickerRow(omitted);
    assert.equal(row.bid_price, null);
    assert.equal(row.volume24h, null);
    await store.insert('option_tickers', [optionTickerRow(decoded), row, optionTickerRow(withBook)]);
    const rows = await store.query<Record<string, unknown>>(`SELECT id, ${ADDED_COLUMNS} FROM option_tickers FINAL ORDER BY id`);
    const nulls = {
      price_currency: null,
      bid_price: null,
      ask_price: null,
      bid_price_usd: null,
      ask_price_usd: null,
      bid_size: null,
      ask_size: null,
      last_price: null,
      last_price_usd: null,
      volume24h: null,
    };
    assert.deepEqual(rows, [
      { id: 'v1', ...nulls },
      { id: 'v1-omitted', ...nulls },
      {
        id: 'v2',
        price_currency: 'USDC',
        bid_price: 3.1,
        ask_price: 3.4,
        bid_price_usd: 3.1,
        ask_price_usd: 3.4,
        bid_size: 25,
        ask_size: 12.5,
        last_price: 3.3,
        last_price_usd: 3.3,
        volume24h: 410,
      },
    ]);
  });
});
