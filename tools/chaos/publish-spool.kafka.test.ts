/**
 * The ingest publisher's disk spool on the real broker: events are added at a steady rate while the broker is
 * stopped for 20 s (a private broker: ops/kafka/start.sh on free ports), and the publisher must never hold its
 * callers (the venue readers) for more than the spool's take-over time, lose nothing, and drain the spool once the
 * broker is back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KafkaBus } from '#bus/kafka-bus.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import { EventPublisher, SPOOL_AFTER_MS } from '#ingest/pipeline/event-publisher.ts';
import { PublishSpool } from '#ingest/pipeline/publish-spool.ts';
import { decodeMarketEvent } from '#schemas/event-codec.ts';
import { TOPICS, type MarketEvent } from '#schemas/events.ts';
import { freePort } from '../free-port.ts';
import { startPrivateBroker, type BrokerControl } from './kafka-broker.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const RATE_PER_10MS = 10; // 1,000 events/s
const DOWN_MS = 20_000;

/** Stamped now: Kafka 4 refuses a message timestamp more than an hour ahead (the fixture's is today 08:00 UTC). */
const trade = (n: number): MarketEvent => {
  const now = Date.now();
  return { type: 'option_trade', event: { ...optionTrade(n), id: `spool-${n}`, ts: now, receivedAt: now } } as MarketEvent;
};

test(
  'broker stopped 20 s while 1,000 events/s are added: callers are never held past the spool take-over, 0 lost, the spool drains',
  { timeout: 300_000 },
  async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'gex-spool-kafka-'));
    let broker: BrokerControl | null = null;
    let bus: KafkaBus | null = null;
    try {
      broker = startPrivateBroker(root, join(workDir, 'kafka'), await freePort(), await freePort());
      bus = new KafkaBus({ brokers: broker.brokers, clientId: 'spool-test' });
      await bus.ensureTopics([{ name: TOPICS.option_trade, partitions: 3 }]);
      const spoolDir = join(workDir, 'spool');
      const spool = new PublishSpool({ dir: spoolDir, maxBytes: 1 << 30, segmentBytes: 256 * 1024 }).open();
      // A small high-water mark so the outage reaches it within a second.
      const publisher = new EventPublisher(bus, { maxBatch: 500, lingerMs: 10, highWaterMark: 1000, spool });

      let n = 0;
      let longestHold = 0;
      let peakSpool = 0;
      let stop = false;
      const producer = (async () => {
        while (!stop) {
          const t0 = Date.now();
          for (let i = 0; i < RATE_PER_10MS; i++) {
            const held = publisher.add([trade(n++)]);
            if (held) {
              const at = Date.now();
              await held;
              longestHold = Math.max(longestHold, Date.now() - at);
            }
          }
          peakSpool = Math.max(peakSpool, spool.bytes);
          await sleep(Math.max(0, 10 - (Date.now() - t0)));
        }
      })();
      await sleep(3000);
      const { downAt, upAt } = await broker.bounce(DOWN_MS);
      // The spool drains by itself while events keep coming (a running ingest never calls flush).
      const drainDeadline = Date.now() + 60_000;
      await sleep(1000);
      while (spool.bytes > 0 && Date.now() < drainDeadline) await sleep(100);
      const drainedInMs = Date.now() - upAt;
      assert.equal(spool.bytes, 0, 'the spool drained while the producer went on');
      stop = true;
      await producer;
      await publisher.flush();
      const added = n;

      // Everything published reads back: each id at least once, per partition in add order.
      const seen = new Map<string, number>();
      const lastByPartition = new Map<number, number>();
      let outOfOrder = 0;
      const consumer = await bus.subscribe({
        groupId: `spool-read-${Date.now()}`,
        topics: [TOPICS.option_trade],
        fromBeginning: true,
        eachBatch: async (b) => {
          for (const m of b.messages) {
            const id = decodeMarketEvent(TOPICS.option_trade, m.value).event.id;
            seen.set(id, (seen.get(id) ?? 0) + 1);
            const k = Number(id.slice('spool-'.length));
            if (k < (lastByPartition.get(m.partition) ?? -1) && seen.get(id) === 1) outOfOrder++;
            lastByPartition.set(m.partition, Math.max(k, lastByPartition.get(m.partition) ?? -1));
          }
        },
      });
      const deadline = Date.now() + 60_000;
      while (seen.size < added && Date.now() < deadline) await sleep(250);
      await consumer.stop();
      const lost = Array.from({ length: added }, (_, i) => `spool-${i}`).filter((id) => !seen.has(id));
      const doubled = [...seen.values()].filter((c) => c > 1).length;
      console.log(
        JSON.stringify({
          added,
          downMs: upAt - downAt,
          drainedInMs,
          longestHoldMs: longestHold,
          peakSpoolBytes: peakSpool,
          lost: lost.length,
          doubled,
          outOfOrder,
        }),
      );
      assert.deepEqual(lost.slice(0, 10), [], `${lost.length} of ${added} events lost`);
      assert.ok(added >= 20_000, `the producer kept adding through the outage (${added})`);
      assert.ok(peakSpool > 0, 'the outage went to the spool');
      assert.ok(longestHold < SPOOL_AFTER_MS + 1500, `callers held at most ${longestHold} ms`);
      assert.equal(outOfOrder, 0, 'each partition in add order (a re-sent batch may repeat ids, never reorder first sightings)');
      assert.equal(spool.bytes, 0, 'the spool drained');
      assert.deepEqual(
        readdirSync(spoolDir).filter((f) => f.endsWith('.spool')),
        [],
      );
      await publisher.close();
    } finally {
      await bus?.close();
      broker?.stop();
      rmSync(workDir, { recursive: true, force: true });
    }
  },
);
