import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROMETHEUS_DIR, RULE_FILES, alertNames, alertTestCoverage, recordingRules, runbookSections } from './prometheus-files.ts';

/** Runs promtool in ops/prometheus (tools/run-tests.mjs runs this file only when promtool is installed). */
function promtool(...args: string[]): { code: number | null; out: string } {
  const r = spawnSync('promtool', args, { cwd: PROMETHEUS_DIR, encoding: 'utf8' });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

test('promtool check config: the scrape configuration and the rule files it loads are valid', () => {
  const r = promtool('check', 'config', 'prometheus.yml');
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /SUCCESS: 2 rule files found/);
});

test('promtool check rules: every recording and alert rule parses', () => {
  const r = promtool('check', 'rules', ...RULE_FILES);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, new RegExp(`SUCCESS: ${recordingRules().length} rules found`));
  assert.match(r.out, new RegExp(`SUCCESS: ${alertNames().length} rules found`));
});

test('promtool test rules: the alert unit tests pass', () => {
  const r = promtool('test', 'rules', 'tests/alerts.test.yml');
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /SUCCESS/);
});

test('promtool test rules: the WebSocket recording rules give the hand-computed values', () => {
  const r = promtool('test', 'rules', 'tests/ws-recording.test.yml');
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /SUCCESS/);
});

test('promtool test rules fails on a wrong expectation (the unit tests can fail)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-promtool-'));
  const file = join(dir, 'wrong.test.yml');
  writeFileSync(
    file,
    [
      `rule_files: [${PROMETHEUS_DIR}rules/alerts.yml]`,
      'tests:',
      '  - interval: 1m',
      '    input_series: [{ series: \'up{job="gex-query-api",instance="a"}\', values: \'1x5\' }]',
      '    alert_rule_test:',
      '      - { eval_time: 4m, alertname: GexTargetDown, exp_alerts: [{ exp_labels: { severity: critical, job: gex-query-api, instance: a } }] }',
      '',
    ].join('\n'),
  );
  const r = promtool('test', 'rules', file);
  rmSync(dir, { recursive: true, force: true });
  assert.notEqual(r.code, 0, 'an up target must not raise GexTargetDown');
  assert.match(r.out, /FAILED:[\s\S]*alertname: GexTargetDown[\s\S]*got:\[\]/);
});

test('every alert has a runbook section and unit tests that make it fire and keep it silent', () => {
  const alerts = alertNames();
  assert.ok(alerts.length >= 8, `${alerts.length} alerts`);
  const coverage = alertTestCoverage();
  const runbooks = new Set(runbookSections());
  for (const alert of alerts) {
    assert.ok(runbooks.has(alert), `RUNBOOK.md has a section for ${alert}`);
    assert.deepEqual(coverage.get(alert), { fires: true, silent: true }, `${alert} is tested firing and silent`);
  }
});
