/**
 * The metric names a PromQL expression selects. Not a PromQL parser: it removes what cannot name a metric
 * (strings, label matchers, range and subquery brackets, grouping clauses, numbers and durations), then every
 * identifier left that is not a function call or an operator keyword is a metric (or recording rule) name.
 * Grafana variables ($venue, $__rate_interval) are removed first.
 */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);
const GROUPING = /\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g;

export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(GROUPING, ' ')
    .replace(/\b\d+(\.\d+)?(e[+-]?\d+)?[smhdwy]?\b/gi, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = stripped.slice((m.index ?? 0) + m[0].length).trimStart();
    if (after.startsWith('(')) continue; // a function or aggregation
    if (KEYWORDS.has(m[0].toLowerCase())) continue;
    names.add(m[0]);
  }
  return [...names].sort();
}

/** Names of Grafana label_values(metric, label) variable queries. */
export function labelValuesMetric(query: string): string | null {
  return /label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*,/.exec(query)?.[1] ?? null;
}
