import { loadApiConfig } from '../config.ts';
import { AdminCallError, runAdmin, type AdminTarget } from './client.ts';
import type { AdminCall } from './operations.ts';
import { tokenFile } from './token.ts';
import type { Store } from '#clickhouse/store.ts';
import { ZodError } from 'zod';
import { AccountError } from '../accounts/repository.ts';

/** Shared by `gex keys` and `gex users`: resolve the target, run the call, print, map errors to exit codes. */
export async function runAdminCommand(
  env: { readonly dataDir: string; readonly flags: ReadonlyMap<string, string>; readonly openStore: () => Promise<Store> },
  call: AdminCall,
  print: (result: Record<string, unknown>) => string,
): Promise<number> {
  const api = loadApiConfig(process.env, env.flags);
  const target: AdminTarget = {
    adminPort: api.adminPort,
    tokenFile: tokenFile(env.dataDir),
    keyPrefix: api.apiKeyPrefix,
    openStore: env.openStore,
  };
  try {
    const { via, result } = await runAdmin(target, call);
    process.stdout.write(print(result));
    process.stderr.write(
      `(${via === 'api' ? `via the running API on 127.0.0.1:${api.adminPort}` : 'directly in the store: no running API answered'})\n`,
    );
    return 0;
  } catch (err) {
    if (err instanceof ZodError) {
      process.stderr.write(`gex: ${err.issues.map((i) => i.message).join('; ')}\n`);
      return 2;
    }
    if (err instanceof AdminCallError || err instanceof AccountError) {
      process.stderr.write(`gex: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}
