import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fp from 'fastify-plugin';

/** A client X-Request-ID is echoed when it is sane; anything else gets a fresh UUID. */
const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

export function genRequestId(req: IncomingMessage): string {
  const h = req.headers['x-request-id'];
  return typeof h === 'string' && SANE.test(h) ? h : randomUUID();
}

/** Sets X-Request-ID on every response (meta.request_id carries the same value). */
export const requestIdPlugin = fp(
  async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      reply.header('X-Request-ID', request.id);
    });
  },
  { name: 'gex-request-id' },
);
