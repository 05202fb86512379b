import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Registry } from 'prom-client';
import { addThreadMetrics, metricsRegistry, processMetrics } from './registry.ts';

test('processMetrics merges another thread’s registry: equal series summed, its own series added, a silent thread left out', async () => {
  const name = 'gex_test_process_metrics_total';
  const mine = new Counter({ name, help: 'test', labelNames: ['venue'], registers: [metricsRegistry] });
  const other = new Registry();
  other.setDefaultLabels({ service: 'gex' });
  const theirs = new Counter({ name, help: 'test', labelNames: ['venue'], registers: [other] });
  mine.inc({ venue: 'deribit' }, 2);
  theirs.inc({ venue: 'deribit' }, 3);
  theirs.inc({ venue: 'okx' }, 5);
  const remove = addThreadMetrics(() => other.getMetricsAsJSON());
  const silent = addThreadMetrics(() => new Promise(() => undefined));
  try {
    const text = await (await processMetrics()).metrics();
    assert.match(text, /gex_test_process_metrics_total\{venue="deribit",service="gex"\} 5\n/);
    assert.match(text, /gex_test_process_metrics_total\{venue="okx",service="gex"\} 5\n/);
    assert.match(text, /^process_cpu_user_seconds_total\{service="gex"\} /m, "this thread's process metrics are there");
  } finally {
    remove();
    silent();
    metricsRegistry.removeSingleMetric(name);
  }
  assert.equal(await processMetrics(), metricsRegistry, 'with no other thread: this thread’s registry as it is');
});
