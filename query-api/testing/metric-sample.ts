import { metricsRegistry } from '#platform/metrics/registry.ts';

/** The value of a metric's first series whose labels contain `label` (e.g. `source="tail"`); 0 when none. */
export async function metricSample(name: string, label: string): Promise<number> {
  const text = await metricsRegistry.getSingleMetricAsString(name);
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(label));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}
