import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { KafkaBus } from './kafka-bus.ts';
import { trackLag } from './bus-metrics.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';

/** A "broker" that accepts connections and never answers (a frozen or half-dead broker): every request hangs. */
async function silentBroker(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('/metrics answers within the lag deadline while the broker does not: the look-ups run at once, and a scrape joins those still running', async () => {
  const broker = await silentBroker();
  const bus = new KafkaBus({ brokers: [`127.0.0.1:${broker.port}`], clientId: 'lag-metrics-test', retries: 0 });
  // 12 subscriptions x 3 topics: one look-up after another, each waiting its 2 s, took 72 s.
  const untrack = Array.from({ length: 12 }, (_, i) => trackLag(bus, `group-${i}`, ['a', 'b', 'c']));
  try {
    for (let scrape = 0; scrape < 2; scrape++) {
      const t0 = performance.now();
      const text = await metricsRegistry.metrics();
      const ms = performance.now() - t0;
      assert.ok(ms < 6_000, `scrape ${scrape} took ${Math.round(ms)} ms`);
      assert.doesNotMatch(text, /gex_bus_consumer_lag_messages\{/, 'no lag figure from a broker that does not answer');
    }
  } finally {
    for (const u of untrack) u();
    await broker.close();
    await bus.close();
  }
});
