/**
 * The publishing side of the two-process Kafka bench (bench/bus.ts): as in production, where the ingest role
 * (publisher) and the processors (consumers) are separate processes. Driven over the fork IPC channel:
 *   <- { ready: true }                         once connected and the topic exists
 *   -> { cmd: 'go', topic, events, batchSize, withCodec }
 *   <- { published: n, ms }                    after the last batch was acknowledged
 *   -> { cmd: 'stop' }                         disconnects and exits
 */
import { KafkaBus } from '#bus/kafka-bus.ts';
import type { BusMessage } from '#bus/types.ts';
import { encoded, keys, POOL, trades, tradeType } from './bus-events.ts';

type Command = { cmd: 'go'; topic: string; events: number; batchSize: number; withCodec: boolean } | { cmd: 'stop' };

const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',').filter((b) => b.length > 0);
const bus = new KafkaBus({ brokers, clientId: 'bench-publisher' });
const send = (m: object): void => {
  process.send?.(m);
};

async function publishAll(c: Extract<Command, { cmd: 'go' }>): Promise<void> {
  const t0 = performance.now();
  for (let sent = 0; sent < c.events; sent += c.batchSize) {
    const n = Math.min(c.batchSize, c.events - sent);
    const batch: BusMessage[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const j = (sent + i) % POOL;
      batch[i] = { key: keys[j] ?? '', value: c.withCodec ? tradeType.toBuffer(trades[j]) : (encoded[j] ?? Buffer.alloc(0)) };
    }
    await bus.publish(c.topic, batch);
  }
  send({ published: c.events, ms: performance.now() - t0 });
}

process.on('message', (raw: unknown) => {
  const m = raw as Command;
  if (m.cmd === 'go') {
    publishAll(m).catch((err: unknown) => {
      process.stderr.write(`publisher failed: ${String(err)}\n`);
      process.exit(1);
    });
  } else if (m.cmd === 'stop') void bus.close().then(() => process.exit(0));
});
send({ ready: true });
