/** The chaos harness's result table (stdout) and the verdict. */
import type { ScenarioRow } from './run-scenario.ts';

const COLUMNS: readonly [string, (r: ScenarioRow) => string][] = [
  ['scenario', (r) => `${r.id} ${r.name}`],
  ['offered', (r) => String(r.offered)],
  ['delivered', (r) => String(r.delivered)],
  ['stored', (r) => String(r.stored)],
  ['lost', (r) => String(r.lost)],
  ['late (s)', (r) => (r.late === 0 ? '0' : `${r.late} (${r.lateSeconds?.toFixed(0) ?? '?'})`)],
  ['doubled', (r) => String(r.doubled)],
  ['REST-filled', (r) => String(r.recovered)],
  ['recover s', (r) => (r.recoverSeconds === null ? 'n/a' : r.recoverSeconds.toFixed(1))],
  ['API 5xx during', (r) => String(r.api5xxDuring)],
  ['API 5xx after', (r) => String(r.api5xxAfter)],
  ['API no answer', (r) => String(r.apiNoAnswerDuring)],
  ['crashed', (r) => (r.crashed.length === 0 ? '0' : r.crashed.join(','))],
  ['verdict', (r) => (r.skipped ? 'skipped' : passed(r) ? 'ok' : 'FAIL')],
];

export function passed(r: ScenarioRow): boolean {
  return r.skipped !== undefined || (r.offered > 0 && r.lost === 0 && r.doubled === 0 && r.crashed.length === 0);
}

/** A Markdown table: first column left-aligned, the others right-aligned. */
export function markdownTable<T>(columns: readonly (readonly [string, (r: T) => string])[], rows: readonly T[]): string {
  const cells = [columns.map(([h]) => h), ...rows.map((r) => columns.map(([, f]) => f(r)))];
  const widths = columns.map((_, c) => Math.max(...cells.map((row) => (row[c] as string).length)));
  const line = (row: readonly string[]): string =>
    `| ${row.map((v, c) => (c === 0 ? v.padEnd(widths[c] ?? 0) : v.padStart(widths[c] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  const [head, ...body] = cells;
  return [line(head ?? []), rule, ...body.map(line)].join('\n');
}

export function formatTable(rows: readonly ScenarioRow[]): string {
  return markdownTable(COLUMNS, rows);
}
