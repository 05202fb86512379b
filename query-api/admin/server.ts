import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { ZodError } from 'zod';
import { AccountError, type AccountsRepository } from '../accounts/repository.ts';
import { runAdminCall, type AdminCall } from './operations.ts';
import { sameToken, writeToken } from './token.ts';

export interface AdminServerOptions {
  readonly repository: AccountsRepository;
  readonly keyPrefix: string;
  /** Reload the API's account cache after a change. */
  readonly changed: () => Promise<void>;
  /** 0 = any free port. Always bound to 127.0.0.1. */
  readonly port: number;
  /** Where to write the bearer token the CLI reads. */
  readonly tokenFile: string;
  readonly log?: FastifyBaseLogger;
}

export interface AdminServer {
  readonly app: FastifyInstance;
  readonly port: number;
  close(): Promise<void>;
}

const OPS: Readonly<Record<string, AdminCall['op']>> = {
  '/admin/users/upsert': 'users.upsert',
  '/admin/keys/create': 'keys.create',
  '/admin/keys/revoke': 'keys.revoke',
  '/admin/keys/list': 'keys.list',
};

/**
 * Loopback-only admin endpoint of a running API process: `gex users` / `gex keys` talk to it because the
 * embedded store's data directory is locked by this process. POST /admin/<users|keys>/<op> with a JSON body,
 * `Authorization: Bearer <token from the token file>`.
 */
export async function startAdminServer(opts: AdminServerOptions): Promise<AdminServer> {
  const token = writeToken(opts.tokenFile);
  const app = Fastify(opts.log !== undefined ? { loggerInstance: opts.log } : { logger: false });
  app.addHook('onRequest', async (request, reply) => {
    const auth = request.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ') || !sameToken(auth.slice(7), token)) {
      return reply.code(401).send({ ok: false, error: 'bad admin token' });
    }
  });
  app.get('/admin/ping', async () => ({ ok: true, pid: process.pid }));
  for (const [url, op] of Object.entries(OPS)) {
    app.post(url, async (request, reply) => {
      try {
        const result = await runAdminCall(opts.repository, opts.keyPrefix, { op, input: request.body }, opts.changed);
        return { ok: true, result };
      } catch (err) {
        if (err instanceof ZodError) return reply.code(422).send({ ok: false, error: err.issues.map((i) => i.message).join('; ') });
        if (err instanceof AccountError) return reply.code(404).send({ ok: false, error: err.message });
        request.log.error({ err }, 'admin operation failed');
        return reply.code(500).send({ ok: false, error: 'operation failed; see the API logs' });
      }
    });
  }
  await app.listen({ host: '127.0.0.1', port: opts.port });
  const port = (app.server.address() as AddressInfo).port;
  return { app, port, close: () => app.close() };
}
