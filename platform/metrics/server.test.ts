import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter } from 'prom-client';
import { metricsRegistry } from './registry.ts';
import { startMetricsServer } from './server.ts';

test('GET /metrics serves the process registry in Prometheus text format', async () => {
  const c = new Counter({ name: 'test_metrics_server_hits_total', help: 'test counter', registers: [metricsRegistry] });
  c.inc(3);
  const srv = await startMetricsServer('127.0.0.1', 0);
  try {
    const res = await fetch(`http://127.0.0.1:${srv.port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    const body = await res.text();
    assert.match(body, /^test_metrics_server_hits_total\{service="gex"\} 3$/m);
    assert.match(body, /process_cpu_seconds_total/);
    assert.equal((await fetch(`http://127.0.0.1:${srv.port}/other`)).status, 404);
  } finally {
    await srv.close();
  }
});
