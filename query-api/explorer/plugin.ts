/**
 * The web explorer at /app (README "Web explorer"): a static single page that reads the public /v2 API with the
 * user's own key. The page itself is public (no data in it); its assets are built from source on first request
 * (bundle.ts) and kept in memory. Not part of the /v2 contract, so hidden from OpenAPI and /v2/endpoints.
 */
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { buildExplorer, type ExplorerBundle } from './bundle.ts';

export const EXPLORER_PATH = '/app';

export const explorerPlugin = fp(
  async (app) => {
    let bundle: Promise<ExplorerBundle> | null = null;
    const get = (): Promise<ExplorerBundle> => {
      bundle ??= buildExplorer().catch((e: unknown) => {
        bundle = null; // a failed build is retried by the next request
        throw e;
      });
      return bundle;
    };
    const route = { config: { public: true }, schema: { hide: true } };
    const page = async (_req: unknown, reply: FastifyReply) =>
      reply
        .type('text/html; charset=utf-8')
        .header('Cache-Control', 'no-cache')
        .header('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; connect-src 'self'")
        .send((await get()).html);
    app.get(EXPLORER_PATH, route, page);
    app.get(`${EXPLORER_PATH}/`, route, page);
    app.get(`${EXPLORER_PATH}/app.js`, route, async (_req, reply) =>
      reply
        .type('application/javascript; charset=utf-8')
        .header('Cache-Control', 'no-cache')
        .send((await get()).js),
    );
    app.get(`${EXPLORER_PATH}/app.css`, route, async (_req, reply) =>
      reply
        .type('text/css; charset=utf-8')
        .header('Cache-Control', 'no-cache')
        .send((await get()).css),
    );
  },
  { name: 'gex-explorer' },
);
