import type { CliCommand } from '../command.ts';
import { openStore } from '../../runtime/open-store.ts';
import { migrate } from '../../../../clickhouse/migrate.ts';

/** `gex migrate`: applies pending ClickHouse migrations and prints what it applied. */
export const migrateCommand: CliCommand = {
  name: 'migrate',
  usage: 'migrate',
  summary: 'Apply pending ClickHouse migrations (the roles also do this at start).',
  async run({ config }) {
    const store = await openStore(config);
    try {
      const { applied } = await migrate(store, { ...(config.clickhouseCluster !== undefined ? { cluster: config.clickhouseCluster } : {}) });
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'up to date\n');
      return 0;
    } finally {
      await store.close();
    }
  },
};
