import { readFileSync, readdirSync } from 'node:fs';
import { z } from 'zod';
import { REPO_ROOT } from './metric-catalogue.ts';
import { labelValuesMetric } from './promql-names.ts';

export const GRAFANA_DIR = `${REPO_ROOT}ops/grafana/`;

const datasource = z.object({ type: z.literal('prometheus'), uid: z.literal('${datasource}') });
const target = z.object({ refId: z.string().regex(/^[A-Z]$/), datasource, expr: z.string().min(1), legendFormat: z.string() });
const panel = z.object({
  id: z.number().int().positive(),
  type: z.enum(['timeseries', 'stat']),
  title: z.string().min(1),
  description: z.string().min(1),
  datasource,
  gridPos: z.object({
    x: z.number().int().min(0).max(23),
    y: z.number().int().min(0),
    w: z.number().int().min(1).max(24),
    h: z.number().int().min(1),
  }),
  fieldConfig: z.object({ defaults: z.object({ unit: z.string().min(1) }) }),
  targets: z.array(target).min(1),
});
const variable = z.object({
  name: z.string().regex(/^\w+$/),
  type: z.enum(['datasource', 'query']),
  query: z.union([z.string(), z.object({ query: z.string() })]),
});

/** The part of Grafana's dashboard JSON model the provisioned dashboards must have. */
export const dashboardSchema = z.object({
  uid: z.string().regex(/^gex-[a-z-]+$/),
  title: z.string().startsWith('GEX: '),
  tags: z.array(z.string()).refine((tags) => tags.includes('gex'), 'tagged gex'),
  schemaVersion: z.number().int().min(36),
  time: z.object({ from: z.string(), to: z.string() }),
  templating: z.object({ list: z.array(variable) }),
  panels: z.array(panel).min(1),
});
export type Dashboard = z.infer<typeof dashboardSchema>;

export function dashboardFiles(): string[] {
  return readdirSync(`${GRAFANA_DIR}dashboards`)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

export function readDashboard(file: string): Dashboard {
  return dashboardSchema.parse(JSON.parse(readFileSync(`${GRAFANA_DIR}dashboards/${file}`, 'utf8')));
}

/** Every PromQL expression of a dashboard, with where it is (file, panel title). */
export function dashboardQueries(file: string, d: Dashboard = readDashboard(file)): { where: string; expr: string }[] {
  const out: { where: string; expr: string }[] = [];
  for (const p of d.panels) for (const t of p.targets) out.push({ where: `${file} / ${p.title} / ${t.refId}`, expr: t.expr });
  return out;
}

/** Metrics that dashboard variables read label values from. */
export function variableMetrics(d: Dashboard): string[] {
  return d.templating.list.flatMap((v) => {
    const q = typeof v.query === 'string' ? v.query : v.query.query;
    const m = v.type === 'query' ? labelValuesMetric(q) : null;
    return m === null ? [] : [m];
  });
}

/** A dashboard query as Prometheus runs it with every variable on "All". */
export function withAllVariables(expr: string): string {
  return expr.replace(/\$\{?(\w+)\}?/g, (_, name: string) => (name === '__rate_interval' ? '1m' : '.+'));
}
