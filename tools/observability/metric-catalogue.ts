import { readFileSync } from 'node:fs';
import { metricsRegistry } from '#platform/metrics/registry.ts';

/** One metric as operators see it: name, type and declared label names (sorted; `service` is a default label). */
export interface CatalogueEntry {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
}

export const REPO_ROOT = new URL('../../', import.meta.url).pathname;

/** The client library's standard metrics (collectDefaultMetrics) keep their usual names and are not catalogued. */
export const isStandardMetric = (name: string): boolean => name.startsWith('process_') || name.startsWith('nodejs_');

/** The metric table of README.md between the `metrics:begin` / `metrics:end` markers. */
export function readmeCatalogue(readme = readFileSync(`${REPO_ROOT}README.md`, 'utf8')): CatalogueEntry[] {
  const begin = readme.indexOf('<!-- metrics:begin -->');
  const end = readme.indexOf('<!-- metrics:end -->');
  if (begin < 0 || end < begin) throw new Error('README.md has no metrics:begin / metrics:end table');
  const entries: CatalogueEntry[] = [];
  for (const line of readme.slice(begin, end).split('\n')) {
    const m = /^\| `([a-z_:][a-z0-9_:]*)` \| (\w+) \| ([^|]*) \|/.exec(line);
    if (!m) continue;
    const labels = (m[3] ?? '').trim();
    entries.push({
      name: m[1] as string,
      type: m[2] as string,
      labels:
        labels === '—'
          ? []
          : labels
              .split(',')
              .map((l) => l.trim())
              .sort(),
    });
  }
  return entries;
}

/** Application metrics currently registered in this process's registry. */
export function registryCatalogue(): CatalogueEntry[] {
  return metricsRegistry
    .getMetricsAsArray()
    .filter((m) => !isStandardMetric(m.name))
    .map((m) => ({
      name: m.name,
      type: String(m.type),
      labels: [...((m as unknown as { labelNames?: readonly string[] }).labelNames ?? [])].sort(),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The series names a metric exposes (a histogram exposes _bucket, _sum and _count). */
export function exposedSeries(entry: CatalogueEntry): string[] {
  return entry.type === 'histogram' ? [`${entry.name}_bucket`, `${entry.name}_sum`, `${entry.name}_count`] : [entry.name];
}
