import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { exposedSeries, readmeCatalogue } from './metric-catalogue.ts';
import { promqlMetricNames } from './promql-names.ts';
import { dashboardFiles, dashboardQueries, GRAFANA_DIR, readDashboard, variableMetrics } from './grafana-files.ts';
import { alertNames, recordingRules } from './prometheus-files.ts';

/** Everything a query may select: registered metrics (README table, checked against the registry), recording rules, up. */
function knownSeries(): Set<string> {
  return new Set([...readmeCatalogue().flatMap(exposedSeries), ...recordingRules().map((r) => r.record), 'up']);
}

function unknownNames(expr: string, known: Set<string>): string[] {
  return promqlMetricNames(expr).filter((n) => !known.has(n));
}

test('five dashboards (overview, ingest, bus and store, snapshots, API) with valid structure and unique ids', () => {
  const files = dashboardFiles();
  assert.deepEqual(files, ['api.json', 'bus-store.json', 'ingest.json', 'overview.json', 'snapshots.json']);
  const uids = new Set<string>();
  for (const file of files) {
    const d = readDashboard(file);
    assert.ok(!uids.has(d.uid), `${file}: uid ${d.uid} is unique`);
    uids.add(d.uid);
    assert.equal(new Set(d.panels.map((p) => p.id)).size, d.panels.length, `${file}: panel ids are unique`);
    assert.equal(d.templating.list[0]?.name, 'datasource', `${file}: first variable selects the Prometheus data source`);
    for (const p of d.panels) assert.ok(p.gridPos.x + p.gridPos.w <= 24, `${file} / ${p.title} fits the 24-column grid`);
  }
});

test('every dashboard query and variable names only metrics the code registers or recording rules that exist', () => {
  const known = knownSeries();
  let queries = 0;
  for (const file of dashboardFiles()) {
    const d = readDashboard(file);
    for (const q of dashboardQueries(file, d)) {
      queries++;
      assert.ok(promqlMetricNames(q.expr).length > 0, `${q.where}: selects a metric`);
      assert.deepEqual(unknownNames(q.expr, known), [], `${q.where}: ${q.expr}`);
    }
    for (const m of variableMetrics(d)) assert.ok(known.has(m), `${file}: variable reads ${m}`);
  }
  assert.ok(queries >= 35, `${queries} queries`);
});

test('the recording and alert rules name only registered metrics and existing recording rules', () => {
  const known = knownSeries();
  for (const r of recordingRules()) assert.deepEqual(unknownNames(r.expr, known), [], `${r.record}: ${r.expr}`);
  const alerts = readFileSync(`${GRAFANA_DIR}../prometheus/rules/alerts.yml`, 'utf8');
  const exprs = [...alerts.matchAll(/^\s*expr: (?:\|\n((?:\s{10,}.*\n)+)|(.*)\n)/gm)].map((m) => (m[1] ?? m[2] ?? '').trim());
  assert.equal(exprs.length, alertNames().length);
  for (const e of exprs) assert.deepEqual(unknownNames(e, known), [], e);
});

test('the check catches a misspelt metric', () => {
  assert.deepEqual(unknownNames('sum(rate(gex_ingest_event_total[5m]))', knownSeries()), ['gex_ingest_event_total']);
});

test('provisioning files name the dashboards folder and a Prometheus data source', () => {
  const dashboards = readFileSync(`${GRAFANA_DIR}provisioning/dashboards/gex.yml`, 'utf8');
  assert.match(dashboards, /^apiVersion: 1$/m);
  assert.match(dashboards, /type: file/);
  assert.match(dashboards, /path: \/\S+/);
  const datasources = readFileSync(`${GRAFANA_DIR}provisioning/datasources/prometheus.yml`, 'utf8');
  assert.match(datasources, /type: prometheus/);
});
