import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaBus } from '#bus/kafka-bus.ts';
import { assertScenario, runIngestScenario } from './ingest-scenario.ts';

const brokers = (process.env['KAFKA_TEST_BROKERS'] ?? '').split(',').filter((b) => b.length > 0);

test('sandbox -> real connectors -> Kafka -> raw writer -> chDB: nothing lost or doubled under faults', { timeout: 150_000 }, async () => {
  assert.ok(
    brokers.length > 0,
    'KAFKA_TEST_BROKERS is not set (start a broker: bash ops/kafka/start.sh; KAFKA_TEST_BROKERS=127.0.0.1:9092)',
  );
  const r = await runIngestScenario(
    () => new KafkaBus({ brokers, clientId: `e2e-${Date.now()}`, sessionTimeout: 6000, heartbeatInterval: 500, maxWaitTimeInMs: 50 }),
  );
  console.log(
    JSON.stringify({
      seconds: r.seconds,
      malformedSent: r.malformedSent,
      closes: r.closes,
      stales: r.stales,
      counts: r.counts,
      recoveredByGapFill: Object.fromEntries(
        Object.entries(r.diffs)
          .filter(([, d]) => d.recovered.length > 0)
          .map(([k, d]) => [k, d.recovered.length]),
      ),
    }),
  );
  assertScenario(r);
});
