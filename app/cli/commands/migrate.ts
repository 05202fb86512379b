import type { CliCommand } from '../command.ts';
import { openStore } from '../../runtime/open-store.ts';
import { loadMigrations, migrate } from '#clickhouse/migrate.ts';
import { clusterPlan } from '#clickhouse/cluster-plan.ts';

/** `gex migrate --print-cluster <name>`: the DDL a fresh cluster gets, for review; touches no store. */
function printClusterPlan(cluster: string): number {
  let plan: ReturnType<typeof clusterPlan>;
  try {
    plan = clusterPlan(loadMigrations(), cluster);
  } catch (err) {
    process.stderr.write(`gex migrate: ${(err as Error).message}\n`);
    return 2;
  }
  for (const step of plan) process.stdout.write(`-- ${step.name}\n${step.statements.map((s) => `${s};\n`).join('\n')}\n`);
  return 0;
}

/** `gex migrate`: applies pending ClickHouse migrations and prints what it applied. */
export const migrateCommand: CliCommand = {
  name: 'migrate',
  usage: 'migrate [--print-cluster <cluster>]',
  summary: 'Apply pending ClickHouse migrations (the roles also do this at start).',
  async run({ config, flags }) {
    const printCluster = flags.get('print-cluster');
    if (printCluster !== undefined) return printClusterPlan(printCluster);
    const store = await openStore(config);
    try {
      const { applied } = await migrate(store, {
        ...(config.clickhouseCluster !== undefined ? { cluster: config.clickhouseCluster } : {}),
      });
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'up to date\n');
      return 0;
    } finally {
      await store.close();
    }
  },
};
