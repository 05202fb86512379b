import { clusterMigrationsTable, toClusterDdl } from './cluster-ddl.ts';
import type { Migration } from './migrate.ts';
import { stageViewSwaps } from './migration-rules.ts';

const CREATE_MV = /^CREATE\s+MATERIALIZED\s+VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)\s+TO\s+(\w+)\s/i;
const DROP_VIEW = /^DROP\s+VIEW\s+(?:IF\s+EXISTS\s+)?(\w+)\s*$/i;

/**
 * What `migrate` runs on a fresh cluster, migration by migration (`gex migrate --print-cluster <name>`): the runner's
 * staged view swaps with the views the earlier migrations made, then the cluster variant of each statement. Pure.
 */
export function clusterPlan(migrations: readonly Migration[], cluster: string): { readonly name: string; readonly statements: string[] }[] {
  const views = new Map<string, string>();
  const plan = [{ name: 'schema_migrations', statements: [clusterMigrationsTable(cluster)] }];
  for (const m of migrations) {
    const staged = stageViewSwaps(m.statements, views);
    for (const s of staged) {
      const create = CREATE_MV.exec(s.trim());
      if (create !== null) views.set(create[1] as string, create[2] as string);
      const drop = DROP_VIEW.exec(s.trim());
      if (drop !== null) views.delete(drop[1] as string);
    }
    plan.push({ name: m.name, statements: staged.flatMap((s) => toClusterDdl(s, cluster)) });
  }
  return plan;
}
