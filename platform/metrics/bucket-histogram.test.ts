import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Histogram, Registry } from 'prom-client';
import { BucketHistogram } from './bucket-histogram.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
// On a bound (0.01, 1, 30), between bounds, below the first, above the last, and zero.
const VALUES = [0, 0.004, 0.005, 0.0051, 0.01, 0.2, 1, 1.5, 29.9, 30, 31, 1000];

test('BucketHistogram exposes exactly what a prom-client Histogram does for the same observations', async () => {
  const ours = new Registry();
  const theirs = new Registry();
  for (const r of [ours, theirs]) r.setDefaultLabels({ service: 'gex' });
  const h = BucketHistogram.on(ours, 'lag_seconds', 'Lag', BUCKETS, 'venue');
  const p = new Histogram({ name: 'lag_seconds', help: 'Lag', labelNames: ['venue'], buckets: BUCKETS, registers: [theirs] });
  const deribit = h.series('deribit');
  const okx = h.series('okx');
  for (const v of VALUES) {
    deribit.observe(v);
    p.observe({ venue: 'deribit' }, v);
  }
  okx.observe(0.3);
  p.observe({ venue: 'okx' }, 0.3);
  assert.equal(await ours.metrics(), await theirs.metrics());
  // The JSON form too, but for prom-client's exemplar fields (null: exemplars are off).
  const withoutExemplars = (ms: Awaited<ReturnType<Registry['getMetricsAsJSON']>>): unknown =>
    ms.map((m) => ({
      ...m,
      values: m.values.map((v) => ({ value: v.value, labels: v.labels, metricName: (v as { metricName?: string }).metricName })),
    }));
  assert.deepEqual(withoutExemplars(await ours.getMetricsAsJSON()), withoutExemplars(await theirs.getMetricsAsJSON()));
  const text = await ours.metrics();
  // Hand-counted: 0, 0.004 and 0.005 are <= 0.005; 0.0051 and 0.01 add 2 by 0.01; 31 and 1000 only in +Inf.
  assert.match(text, /lag_seconds_bucket\{le="0.005",service="gex",venue="deribit"\} 3\n/);
  assert.match(text, /lag_seconds_bucket\{le="0.01",service="gex",venue="deribit"\} 5\n/);
  assert.match(text, /lag_seconds_bucket\{le="30",service="gex",venue="deribit"\} 10\n/);
  assert.match(text, /lag_seconds_bucket\{le="\+Inf",service="gex",venue="deribit"\} 12\n/);
  assert.match(text, /lag_seconds_count\{service="gex",venue="okx"\} 1\n/);
});

test('BucketHistogram: one series per label value, a second registration returns the first, non-finite values are ignored', async () => {
  const r = new Registry();
  const a = BucketHistogram.on(r, 'x_seconds', 'x', [1, 2], 'venue');
  assert.equal(BucketHistogram.on(r, 'x_seconds', 'x', [1, 2], 'venue'), a);
  assert.equal(a.series('v'), a.series('v'));
  a.series('v').observe(Number.NaN);
  a.series('v').observe(Number.POSITIVE_INFINITY);
  a.series('v').observe(1.5);
  const text = await r.metrics();
  assert.match(text, /x_seconds_count\{venue="v"\} 1\n/);
  assert.match(text, /x_seconds_sum\{venue="v"\} 1.5\n/);
  a.reset();
  assert.doesNotMatch(await r.metrics(), /venue="v"/);
  assert.throws(() => new BucketHistogram('y', 'y', [], 'venue'), RangeError);
  assert.throws(() => new BucketHistogram('y', 'y', [1, 1], 'venue'), RangeError);
});
