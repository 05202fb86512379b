import type { CliCommand } from '../command.ts';
import { openStore } from '../../runtime/open-store.ts';
import { runAdminCommand } from '#query-api/admin/cli.ts';

const USAGE = 'users upsert U --plan P --status S [--evaluation]';

/**
 * `gex users upsert`: create or update a user's plan, subscription status and evaluation flag (through the
 * running API's admin endpoint, or the store directly when no API process answers).
 */
export const usersCommand: CliCommand = {
  name: 'users',
  usage: USAGE,
  summary: 'Create or update a user (plan, subscription status, evaluation flag).',
  async run({ config, positionals, flags }) {
    const [sub, user] = positionals;
    const plan = flags.get('plan');
    const status = flags.get('status');
    if (sub !== 'upsert' || user === undefined || plan === undefined || status === undefined) {
      process.stderr.write(`usage: gex ${USAGE}\n`);
      return 2;
    }
    const evaluation = ['true', '1', 'yes'].includes(flags.get('evaluation') ?? 'false');
    return runAdminCommand(
      { dataDir: config.dataDir, flags, openStore: () => openStore(config) },
      { op: 'users.upsert', input: { user_id: user, plan, status, evaluation } },
      (r) => `${String(r.user_id)}\tplan ${String(r.plan)}\tstatus ${String(r.status)}\tevaluation ${String(r.evaluation)}\n`,
    );
  },
};
