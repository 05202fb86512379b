import type { CliCommand } from '../command.ts';
import { openStore } from '../../runtime/open-store.ts';
import { runAdminCommand } from '#query-api/admin/cli.ts';

const USAGE = 'keys create --user U | keys revoke KEY|KEY_ID | keys list --user U';

/**
 * `gex keys`: issue, revoke and list API keys. Talks to the running API's loopback admin endpoint
 * (ADMIN_PORT) and opens the store directly only when no API process answers. `create` prints the new key
 * once on stdout; only its SHA-256 is stored.
 */
export const keysCommand: CliCommand = {
  name: 'keys',
  usage: USAGE,
  summary: 'Create (prints the key once), revoke or list API keys of a user.',
  async run({ config, positionals, flags }) {
    const env = { dataDir: config.dataDir, flags, openStore: () => openStore(config) };
    const [sub, arg] = positionals;
    const user = flags.get('user');
    if (sub === 'create' && user !== undefined) {
      return runAdminCommand(env, { op: 'keys.create', input: { user_id: user } }, (r) => `${String(r.key)}\n`);
    }
    if (sub === 'revoke' && arg !== undefined) {
      return runAdminCommand(
        env,
        { op: 'keys.revoke', input: { key: arg } },
        (r) => `revoked ${String(r.key_id)} (user ${String(r.user_id)}) at ${String(r.revoked_at)}\n`,
      );
    }
    if (sub === 'list' && user !== undefined) {
      return runAdminCommand(env, { op: 'keys.list', input: { user_id: user } }, (r) => {
        const keys = (r.keys as { key_id: string; created_at: string; revoked_at: string | null }[] | undefined) ?? [];
        return (
          keys
            .map((k) => `${k.key_id}\tcreated ${k.created_at}\t${k.revoked_at === null ? 'active' : `revoked ${k.revoked_at}`}\n`)
            .join('') || '(no keys)\n'
        );
      });
    }
    process.stderr.write(`usage: gex ${USAGE}\n`);
    return 2;
  },
};
