import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { METRIC } from '#platform/metrics/names.ts';
import { formatAge, formatRate, formatStatusLine, statusBetween } from './status-line.ts';
import { readStatus } from './status-metrics.ts';
import { formatReadyLine } from './terminal-status.ts';

const SYMBOLS = ['BTCUSDT', 'ETHUSDT', 'SOLUSDT'];

test('every role: rates over the interval, lag and ages now, symbols in configured order', () => {
  const before = { ingestEvents: 1_000, busLag: 50, snapshotAges: new Map(), apiRequests: 7 };
  const after = {
    ingestEvents: 9_124,
    busLag: 12,
    snapshotAges: new Map([
      ['ETHUSDT', 8.4],
      ['BTCUSDT', 3.6],
    ]),
    apiRequests: 10,
  };
  const status = statusBetween(before, after, 10, SYMBOLS);
  assert.deepEqual(status, {
    eventsPerSecond: 812.4,
    busLag: 12,
    snapshotAges: [
      ['BTCUSDT', 3.6],
      ['ETHUSDT', 8.4],
      ['SOLUSDT', null],
    ],
    apiRequestsPerSecond: 0.3,
  });
  assert.equal(formatStatusLine(status), 'ingest 812 ev/s · bus lag 12 · snapshot age BTCUSDT 4s ETHUSDT 8s SOLUSDT - · api 0.3 req/s');
});

test('only the parts of the roles the process runs', () => {
  assert.equal(formatStatusLine(statusBetween({ ingestEvents: 0 }, { ingestEvents: 45 }, 10, SYMBOLS)), 'ingest 4.5 ev/s');
  assert.equal(formatStatusLine(statusBetween({ apiRequests: 0 }, { apiRequests: 0, busLag: 0 }, 10, SYMBOLS)), 'bus lag 0 · api 0 req/s');
  const ages = new Map([['BTCUSDT', 125]]);
  assert.equal(
    formatStatusLine(statusBetween({}, { snapshotAges: ages, busLag: 3 }, 10, ['BTCUSDT'])),
    'bus lag 3 · snapshot age BTCUSDT 2m',
  );
  assert.equal(formatStatusLine(statusBetween({}, { snapshotAges: new Map() }, 10, [])), 'snapshot age -');
  assert.equal(formatStatusLine(statusBetween({}, {}, 10, SYMBOLS)), '');
});

test('a counter that went down (restart of the count) counts from zero; no time elapsed is no rate', () => {
  assert.deepEqual(statusBetween({ ingestEvents: 500 }, { ingestEvents: 20 }, 10, []), { eventsPerSecond: 2 });
  assert.deepEqual(statusBetween({ apiRequests: 5 }, { apiRequests: 9 }, 0, []), { apiRequestsPerSecond: 0 });
});

test('rates and ages round as the line shows them', () => {
  assert.deepEqual([0, 0.04, 0.3, 9.94, 9.96, 10, 812.5, 12_345.4].map(formatRate), ['0', '0.0', '0.3', '9.9', '10', '10', '813', '12345']);
  assert.deepEqual([null, 0, 4.4, 99.4, 99.5, 150, 5_969, 5_970, 90_000].map(formatAge), [
    '-',
    '0s',
    '4s',
    '99s',
    '2m',
    '3m',
    '99m',
    '2h',
    '25h',
  ]);
});

test('the ready line: roles, URLs, the interval, and the way to more logs when the level is the calm default', () => {
  const roles = ['ingest', 'processors', 'query-api'];
  const urls = { apiUrl: 'http://127.0.0.1:8080', metricsUrl: 'http://127.0.0.1:9464/metrics' };
  assert.equal(
    formatReadyLine({ roles, ...urls, level: 'warn', levelIsDefault: true }),
    'ingest + processors + query-api running · API http://127.0.0.1:8080/v2 · metrics http://127.0.0.1:9464/metrics · status every 10 s' +
      ' · log level warn (LOG_LEVEL=info for more)',
  );
  assert.equal(
    formatReadyLine({ roles: ['ingest'], apiUrl: null, metricsUrl: null, level: 'debug', levelIsDefault: false }),
    'ingest running · status every 10 s · log level debug',
  );
});

test('readStatus reads the registry as a scrape would: counter and histogram-count totals, lag sum, ages by symbol', async () => {
  const registry = new Registry();
  const events = new Counter({ name: METRIC.ingestEvents, help: 'h', labelNames: ['venue', 'type'], registers: [registry] });
  events.inc({ venue: 'okx', type: 'trade' }, 30);
  events.inc({ venue: 'deribit', type: 'ticker' }, 12);
  const lag = new Gauge({ name: METRIC.busConsumerLag, help: 'h', labelNames: ['topic', 'partition'], registers: [registry] });
  lag.set({ topic: 'a', partition: '0' }, 4);
  lag.set({ topic: 'a', partition: '1' }, 5);
  new Gauge({
    name: METRIC.snapshotAge,
    help: 'h',
    labelNames: ['symbol'],
    registers: [registry],
    collect() {
      this.set({ symbol: 'BTCUSDT' }, 7.5); // computed on scrape, like the product's gauge
    },
  });
  const requests = new Histogram({
    name: METRIC.apiRequestDuration,
    help: 'h',
    labelNames: ['route'],
    buckets: [0.1, 1],
    registers: [registry],
  });
  requests.observe({ route: '/v2/meta' }, 0.05);
  requests.observe({ route: '/v2/meta' }, 2);
  requests.observe({ route: '/v2/health' }, 0.5);

  const all = await readStatus(registry, { ingest: true, snapshots: true, api: true });
  assert.deepEqual(all, { ingestEvents: 42, busLag: 9, snapshotAges: new Map([['BTCUSDT', 7.5]]), apiRequests: 3 });
  assert.deepEqual(await readStatus(registry, { ingest: false, snapshots: false, api: false }), { busLag: 9 });
  lag.reset();
  assert.deepEqual(await readStatus(registry, { ingest: true, snapshots: false, api: false }), { ingestEvents: 42 });
});
