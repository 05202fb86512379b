import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { maxOf, parseExposition, sumOf } from './prom-text.ts';
import { slope, verdict, type SoakSample } from './verdict.ts';

describe('Prometheus text exposition', () => {
  const text = [
    '# HELP gex_snapshot_age_seconds age',
    '# TYPE gex_snapshot_age_seconds gauge',
    'gex_snapshot_age_seconds{symbol="BTCUSDT"} 12.5',
    'gex_snapshot_age_seconds{symbol="ETHUSDT"} 41',
    'gex_api_request_duration_seconds_count{method="GET",route="/v2/gex/levels",status="200"} 90',
    'gex_api_request_duration_seconds_count{method="GET",route="/v2/gex/levels",status="503"} 2',
    'gex_api_request_duration_seconds_count{method="GET",route="/v2/tape",status="500"} 1',
    'gex_api_request_duration_seconds_bucket{le="+Inf",route="/v2/tape"} 7',
    'nodejs_heap_size_used_bytes 52428800 1700000000000',
    'weird_label{a="x\\"y,z"} 3',
  ].join('\n');
  const m = parseExposition(text);
  test('sums and maxima over label matches; timestamps, HELP/TYPE and +Inf handled', () => {
    assert.equal(maxOf(m, 'gex_snapshot_age_seconds'), 41);
    assert.equal(sumOf(m, 'gex_snapshot_age_seconds'), 53.5);
    assert.equal(
      sumOf(m, 'gex_api_request_duration_seconds_count', (l) => (l['status'] ?? '').startsWith('5')),
      3,
    );
    assert.equal(sumOf(m, 'nodejs_heap_size_used_bytes'), 52_428_800);
    assert.equal(m.find((s) => s.name === 'gex_api_request_duration_seconds_bucket')?.labels['le'], '+Inf');
    assert.equal(m.find((s) => s.name === 'weird_label')?.labels['a'], 'x"y,z');
    assert.equal(sumOf(m, 'absent_metric'), null);
    assert.equal(maxOf(m, 'absent_metric'), null);
  });
});

describe('soak verdict', () => {
  const sample = (minute: number, rss: number, heap: number, over: Partial<SoakSample> = {}): SoakSample => ({
    minute,
    rssMb: { demo: rss, load: 80 },
    heapMb: heap,
    snapshotAgeS: 20,
    api5xx: 0,
    loadErrors: 0,
    ...over,
  });
  test('least-squares slope: exact on a line, 0 on no spread', () => {
    assert.equal(slope([0, 1, 2, 3], [5, 7, 9, 11]), 2);
    assert.equal(slope([1, 1, 1], [1, 2, 3]), 0);
    assert.equal(slope([1], [1]), 0);
    // (0,0),(1,1),(2,0),(3,1): mean x 1.5, mean y 0.5, Sxy = 1, Sxx = 5 -> 0.2
    assert.equal(slope([0, 1, 2, 3], [0, 1, 0, 1]), 0.2);
  });
  test('flat memory with noise passes; the warm-up (max 2 min, 20 %) is excluded', () => {
    // A 10-minute run: warm-up 2 min, in which RSS climbs 400 -> 600 MB; then flat ± noise.
    const s = [
      sample(1, 400, 60),
      sample(2, 600, 90),
      ...[3, 4, 5, 6, 7, 8, 9, 10].map((m, i) => sample(m, 600 + (i % 2) * 3, 90 + (i % 3))),
    ];
    const v = verdict(s);
    assert.equal(v.warmupMinutes, 2);
    assert.deepEqual(v.reasons, []);
    assert.equal(v.pass, true);
  });
  test('a leak fails: RSS 3 MB/min, heap 1.5 MB/min', () => {
    const s = [3, 4, 5, 6, 7, 8].map((m) => sample(m, 500 + 3 * m, 80 + 1.5 * m));
    const v = verdict(s);
    assert.equal(v.pass, false);
    assert.ok(Math.abs((v.rssSlopeMbPerMin['demo'] ?? 0) - 3) < 1e-9);
    assert.deepEqual(v.reasons, ['demo RSS grows 3.00 MB/min (max 2)', 'heap used grows 1.50 MB/min (max 1)']);
  });
  test('errors and stale snapshots fail; too short a run fails with the minimum to run', () => {
    const s = [3, 4, 5, 6].map((m) => sample(m, 500, 80));
    const bad = [...s.slice(0, 3), sample(7, 500, 80, { api5xx: 2, loadErrors: 5, snapshotAgeS: 120 })];
    assert.deepEqual(verdict(bad).reasons, [
      '2 API 5xx',
      '5 failed requests at the load generator',
      'snapshot older than 90 s (or none) at minute(s) 7.0',
    ]);
    assert.deepEqual(verdict([sample(1, 1, 1), sample(2, 1, 1), sample(3, 1, 1)]).reasons, [
      'only 2 samples after the 2.0 min warm-up (need 3: run at least 4 min)',
    ]);
  });
});
