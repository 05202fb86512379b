import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelValuesMetric, promqlMetricNames } from './promql-names.ts';

test('promqlMetricNames finds selectors, not functions, labels, strings, durations or keywords', () => {
  assert.deepEqual(promqlMetricNames('sum by (venue) (rate(gex_ingest_events_total{venue=~"$venue",type!="x"}[5m]))'), [
    'gex_ingest_events_total',
  ]);
  assert.deepEqual(
    promqlMetricNames('(sum by (route) (rate(a_count{status=~"5.."}[5m])) or sum by (route) (rate(b_count[5m])) * 0) / on (route) (c > 0)'),
    ['a_count', 'b_count', 'c'],
  );
  assert.deepEqual(promqlMetricNames('histogram_quantile(0.99, sum by (le) (rate(x_bucket[$__rate_interval])))'), ['x_bucket']);
  assert.deepEqual(promqlMetricNames('venue:gex_ingest_events:rate1m == 0 unless ignoring(instance) up offset 5m'), [
    'up',
    'venue:gex_ingest_events:rate1m',
  ]);
  assert.deepEqual(promqlMetricNames('delta(g:lag:sum[10m:1m]) > 1e3 and bool 2'), ['g:lag:sum']);
});

test('labelValuesMetric reads the metric of a label_values query', () => {
  assert.equal(labelValuesMetric('label_values(gex_ingest_events_total, venue)'), 'gex_ingest_events_total');
  assert.equal(labelValuesMetric('query_result(up)'), null);
});
