import { readFileSync } from 'node:fs';
import { REPO_ROOT } from './metric-catalogue.ts';

/** ops/prometheus, where the scrape configuration, the rules and their promtool unit tests live. */
export const PROMETHEUS_DIR = `${REPO_ROOT}ops/prometheus/`;
export const RULE_FILES = ['rules/recording.yml', 'rules/alerts.yml'] as const;

const read = (rel: string): string => readFileSync(`${PROMETHEUS_DIR}${rel}`, 'utf8');

/** Names of the alert rules of rules/alerts.yml. */
export function alertNames(text = read('rules/alerts.yml')): string[] {
  return [...text.matchAll(/^\s*- alert: (\w+)\s*$/gm)].map((m) => m[1] as string);
}

/** Recording rules of rules/recording.yml: the recorded name and its expression (single or block scalar). */
export function recordingRules(text = read('rules/recording.yml')): { record: string; expr: string }[] {
  const rules: { record: string; expr: string }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const rec = /^\s*- record: (\S+)\s*$/.exec(lines[i] as string);
    if (!rec) continue;
    const exprLine = /^(\s*)expr: (.*)$/.exec(lines[i + 1] ?? '');
    if (!exprLine) throw new Error(`recording rule ${rec[1]}: expr must follow record`);
    let expr = (exprLine[2] as string).trim();
    if (expr === '|') {
      const body: string[] = [];
      const indent = (exprLine[1] as string).length;
      for (let j = i + 2; j < lines.length; j++) {
        const line = lines[j] as string;
        if (line.trim() !== '' && line.length - line.trimStart().length <= indent) break;
        body.push(line.trim());
      }
      expr = body.join(' ').trim();
    }
    rules.push({ record: rec[1] as string, expr });
  }
  return rules;
}

/** For each alert of the unit-test file: whether some case expects it to fire and some case expects silence. */
export function alertTestCoverage(text = read('tests/alerts.test.yml')): Map<string, { fires: boolean; silent: boolean }> {
  const coverage = new Map<string, { fires: boolean; silent: boolean }>();
  for (const block of text.split(/^\s*- eval_time: /m).slice(1)) {
    const name = /alertname: (\w+)/.exec(block)?.[1];
    if (name === undefined) continue;
    const entry = coverage.get(name) ?? { fires: false, silent: false };
    const caseText = block.split(/^\s*(?:- name:|promql_expr_test:)/m)[0] ?? '';
    if (/exp_alerts:\s*\n\s*- exp_labels:/.test(caseText)) entry.fires = true;
    else entry.silent = true;
    coverage.set(name, entry);
  }
  return coverage;
}

/** `## Name` sections of RUNBOOK.md. */
export function runbookSections(text = read('RUNBOOK.md')): string[] {
  return [...text.matchAll(/^## (\w+)\s*$/gm)].map((m) => m[1] as string);
}
