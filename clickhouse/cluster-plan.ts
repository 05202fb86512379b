import { clusterMigrationsTable, toClusterDdl } from './cluster-ddl.ts';
import type { Migration } from './migrate.ts';
import { applyViewChanges, stageViewSwaps } from './migration-rules.ts';

/**
 * What `migrate` runs on a fresh cluster, migration by migration (`gex migrate --print-cluster <name>`): the runner's
 * staged view swaps with the views the earlier migrations made, then the cluster variant of each statement. Pure.
 */
export function clusterPlan(migrations: readonly Migration[], cluster: string): { readonly name: string; readonly statements: string[] }[] {
  const views = new Map<string, string>();
  const plan = [{ name: 'schema_migrations', statements: [clusterMigrationsTable(cluster)] }];
  for (const m of migrations) {
    const staged = stageViewSwaps(m.statements, views);
    applyViewChanges(views, staged);
    plan.push({ name: m.name, statements: staged.flatMap((s) => toClusterDdl(s, cluster)) });
  }
  return plan;
}
