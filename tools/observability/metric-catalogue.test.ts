import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '#platform/settings.ts';
import { createRuntimeContext } from '#app/runtime/context.ts';
import { startRoles } from '#app/cli/commands/roles.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { readmeCatalogue, registryCatalogue } from './metric-catalogue.ts';

const CONVENTION = /^gex_[a-z][a-z0-9_]*[a-z0-9]$/;
const UNIT_SUFFIX = /_(seconds|bytes|messages|rows|ratio|total)$/;

test(
  'every role started: the registry, README metric table and platform/metrics/names.ts name the same metrics',
  { timeout: 120_000 },
  async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gex-catalogue-'));
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', METRICS_PORT: '0', ADMIN_PORT: '0', SYMBOLS: 'BTCUSDT', VENUES: 'deribit' });
    const ctx = await createRuntimeContext(config, { metrics: false });
    try {
      await startRoles(ctx, new Set(['ingest', 'processors', 'query-api'] as const), true);
      const registered = registryCatalogue();
      const readme = readmeCatalogue();
      assert.ok(readme.length >= 30, `README lists ${readme.length} metrics`);
      assert.deepEqual(
        readme.map((e) => e.name).sort(),
        registered.map((e) => e.name),
        'README metric table and the registry of a running product list the same names',
      );
      for (const r of registered) {
        assert.deepEqual(
          readme.find((e) => e.name === r.name),
          r,
          `README row of ${r.name} (type, labels)`,
        );
      }
      assert.deepEqual(
        Object.values(METRIC).sort(),
        registered.map((e) => e.name),
        'names.ts names exactly the registered metrics',
      );
    } finally {
      await ctx.shutdown();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);

test('metric names follow the conventions: gex_ prefix, counters end in _total, others carry a unit or are counts', () => {
  for (const name of Object.values(METRIC)) assert.match(name, CONVENTION);
  for (const e of readmeCatalogue()) {
    if (e.type === 'counter') assert.match(e.name, /_total$/, e.name);
    else assert.doesNotMatch(e.name, /_total$/, e.name);
    if (e.type === 'histogram') assert.match(e.name, /_seconds$/, e.name);
    // Unitless gauges are counts of things named in the metric (instruments, open connections, subscriptions, waiting reads).
    if (e.type === 'gauge' && !UNIT_SUFFIX.test(e.name))
      assert.match(e.name, /_(instruments|connections|subscriptions|replays|reads)$/, e.name);
  }
});

test('the README table parser reads names, types and labels (— = no label)', () => {
  const text =
    'x\n<!-- metrics:begin -->\n| metric | type | labels | what |\n|---|---|---|---|\n| `gex_a_total` | counter | venue, type | a |\n| `gex_b_seconds` | histogram | — | b |\n<!-- metrics:end -->\n| `gex_c` | gauge | x | outside |\n';
  assert.deepEqual(readmeCatalogue(text), [
    { name: 'gex_a_total', type: 'counter', labels: ['type', 'venue'] },
    { name: 'gex_b_seconds', type: 'histogram', labels: [] },
  ]);
});
