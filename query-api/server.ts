import type { Store } from '#clickhouse/store.ts';
import type { Logger } from '#platform/log.ts';
import { startAdminServer, type AdminServer } from './admin/server.ts';
import { tokenFile } from './admin/token.ts';
import { buildApp, type AppDeps } from './app.ts';
import type { ApiConfig } from './config.ts';
import type { ApiInstance } from './types.ts';

export interface StartApiOptions extends Omit<AppDeps, 'store' | 'config'> {
  readonly store: Store;
  readonly config: ApiConfig;
  /** HOST / PORT of the shared settings. */
  readonly host: string;
  readonly port: number;
  /** DATA_DIR: the admin token file goes there. */
  readonly dataDir: string;
  readonly logger?: Logger | false;
}

export interface RunningApi {
  readonly app: ApiInstance;
  readonly admin: AdminServer;
  /** Bound address of the /v2 API (`https://…` with TLS). */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The `api` role: /v2 on HOST:PORT (HTTPS and wss:// when TLS_CERT_FILE + TLS_KEY_FILE are set: tls.ts) and the
 * loopback admin endpoint on 127.0.0.1:ADMIN_PORT (plain HTTP).
 */
export async function startApi(opts: StartApiOptions): Promise<RunningApi> {
  const app = await buildApp(opts);
  let url: string;
  try {
    url = await app.listen({ host: opts.host, port: opts.port });
  } catch (err) {
    await app.close(); // ends what buildApp started (feeds, the TLS reload listeners)
    throw err;
  }
  let admin: AdminServer;
  try {
    admin = await startAdminServer({
      repository: app.gex.repository,
      keyPrefix: opts.config.apiKeyPrefix,
      changed: () => app.gex.accounts.refresh(),
      port: opts.config.adminPort,
      tokenFile: tokenFile(opts.dataDir),
      log: app.log,
    });
  } catch (err) {
    await app.close();
    throw err;
  }
  // url: https://… with TLS_CERT_FILE + TLS_KEY_FILE (Fastify names the scheme of its server); the admin endpoint is plain HTTP.
  app.log.info({ url, tls: opts.config.tlsCertFile !== undefined, adminPort: admin.port }, 'api listening');
  return {
    app,
    admin,
    url,
    async close() {
      await admin.close();
      await app.close();
    },
  };
}
