import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBus } from '#bus/memory-bus.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import * as fx from '#clickhouse/testing/fixtures.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { TOPICS, type MarketEvent } from '#schemas/events.ts';
import { encodeMarketEvent, encodeDeadLetter } from '#schemas/event-codec.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { startRawWriter, writeRawBatch } from './raw-writer.ts';
import type { ConsumedBatch } from '#bus/types.ts';

async function waitFor(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out');
}

const events: MarketEvent[] = [
  ...Array.from({ length: 250 }, (_, i) => ({ type: 'option_trade', event: fx.optionTrade(i) }) as const),
  { type: 'instrument', event: fx.instrumentOption },
  { type: 'instrument', event: fx.instrumentPerp },
  { type: 'option_ticker', event: fx.optionTicker },
  { type: 'perp_trade', event: fx.perpTrade },
  { type: 'spot_trade', event: fx.spotTrade },
  { type: 'perp_stats', event: fx.perpStats },
  { type: 'liquidation', event: fx.liquidation },
  { type: 'index', event: fx.indexPrice },
];

test('every family lands in its raw table; undecodable bytes become dead letters; offsets committed after insert', async () => {
  const { store, dispose } = await openTempStore();
  const bus = new MemoryBus();
  try {
    await migrate(store);
    await ensureProductTopics(bus, 3);
    for (const e of events) {
      const { topic, message } = encodeMarketEvent(e);
      await bus.publish(topic, [message]);
    }
    await bus.publish(TOPICS.dead_letter, [encodeDeadLetter(fx.deadLetter)]);
    await bus.publish(TOPICS.option_trade, [{ key: 'deribit:BTCUSDT', value: Buffer.from('not avro at all') }]);

    const writer = await startRawWriter(bus, store, { groupId: 'rw-test' });
    const count = async (table: string): Promise<number> =>
      Number((await store.query<{ n: string }>(`SELECT count() AS n FROM ${table} FINAL`))[0]?.n ?? -1);
    const pending = async (): Promise<number> => {
      let n = 0;
      for (const topic of Object.values(TOPICS)) {
        if (topic === TOPICS.snapshot) continue;
        for (const p of await bus.lag('rw-test', topic)) n += Number(p.end) - Number(p.committed);
      }
      return n;
    };
    await waitFor(async () => (await pending()) === 0);
    await writer.stop();

    assert.equal(await count('instruments'), 2);
    assert.equal(await count('option_tickers'), 1);
    assert.equal(await count('perp_trades'), 1);
    assert.equal(await count('spot_trades'), 1);
    assert.equal(await count('perp_stats'), 1);
    assert.equal(await count('liquidations'), 1);
    assert.equal(await count('index_prices'), 1);
    const bad = await store.query<{ reason: string; encoding: string; raw: string }>(
      "SELECT reason, encoding, raw FROM dead_letters WHERE encoding = 'base64'",
    );
    assert.equal(bad.length, 1);
    assert.match(bad[0]?.reason ?? '', /^undecodable bus message/);
    assert.equal(Buffer.from(bad[0]?.raw ?? '', 'base64').toString(), 'not avro at all');
    const sum = await store.query<{ s: number }>('SELECT round(sum(size), 6) AS s FROM option_trades FINAL');
    assert.equal(sum[0]?.s, Math.round((250 * 0.1 + (249 * 250) / 2) * 1e6) / 1e6);

    assert.equal(await count('option_trades'), 250);
    assert.equal(await count('dead_letters'), 2);
  } finally {
    await bus.close();
    await dispose();
  }
});

test('a redelivered batch is not stored twice (dedup token, then ReplacingMergeTree on the event id)', async () => {
  const { store, dispose } = await openTempStore();
  try {
    await migrate(store);
    const messages = Array.from({ length: 100 }, (_, i) => {
      const { message } = encodeMarketEvent({ type: 'option_trade', event: fx.optionTrade(i) });
      return {
        topic: TOPICS.option_trade,
        partition: 0,
        offset: String(i),
        key: message.key,
        value: message.value,
        headers: {},
        timestamp: 1,
      };
    });
    const batch: ConsumedBatch = { topic: TOPICS.option_trade, partition: 0, messages };
    await writeRawBatch(store, 'g', batch);
    await writeRawBatch(store, 'g', batch);
    const raw = await store.query<{ n: string }>('SELECT count() AS n FROM option_trades');
    assert.equal(raw[0]?.n, '100');
    // Different boundaries (a rebalance re-split the batch): the insert is new, the ids collapse under FINAL.
    await writeRawBatch(store, 'g', { ...batch, messages: messages.slice(10, 60) });
    const final = await store.query<{ n: string }>('SELECT count() AS n FROM option_trades FINAL');
    assert.equal(final[0]?.n, '100');
  } finally {
    await dispose();
  }
});
