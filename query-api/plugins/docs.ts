import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { createJsonSchemaTransform } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CURRENT_RELEASE } from '../discovery/changelog-data.ts';
import { ERROR_CODES } from '../envelope/errors.ts';

export const OPENAPI_VERSION = '2.0.0';
export const DOCS_PREFIX = '/v2/docs';

const require = createRequire(import.meta.url);
const zodTransform = createJsonSchemaTransform({ skipList: [] });

const errorTable = Object.entries(ERROR_CODES)
  .map(([code, e]) => `| ${code} | ${e.status} | ${e.when} |`)
  .join('\n');

const DESCRIPTION = `Options and gamma-exposure analytics for BTCUSDT, ETHUSDT, SOLUSDT and HYPEUSDT (release ${CURRENT_RELEASE}).

Every route except /v2/openapi.json, /v2/docs, /v2/redoc and /v2/health needs the \`X-API-Key\` header
(\`<prefix>_live_<32 characters>\`). Responses use the envelope \`{success, data, meta}\`; errors
\`{success: false, error: {code, message, details?}, meta}\`.

| Code | HTTP | When |
|---|---|---|
${errorTable}
`;

const REDOC_HTML = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>GEX Analytics API v2 - ReDoc</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/v2/openapi.json"></redoc><script src="/v2/redoc/redoc.standalone.js"></script></body>
</html>
`;

const publicDoc = { tags: ['discovery'], security: [] as never[] };
/** An HTML page: documented as `text/html` (the media type it is served with), not as JSON. */
const htmlPage = { 200: { description: 'HTML page', content: { 'text/html': { schema: z.string().describe('HTML page') } } } };

/**
 * OpenAPI 3.1 generated from the zod route schemas (@fastify/swagger + jsonSchemaTransform), served at
 * /v2/openapi.json; Swagger UI at /v2/docs (bundled assets); ReDoc at /v2/redoc (standalone bundle from
 * node_modules). No CDN: works offline.
 */
export const docsPlugin = fp(
  async (app) => {
    // Swagger UI's own routes are public; its index page is listed in the OpenAPI document.
    app.addHook('onRoute', (route) => {
      if (!route.url.startsWith(DOCS_PREFIX)) return;
      route.config = { ...route.config, public: true };
      if ((route.url === DOCS_PREFIX || route.url === `${DOCS_PREFIX}/`) && route.method === 'GET') {
        route.schema = {
          ...route.schema,
          hide: false,
          summary: 'Swagger UI',
          description: 'Interactive reference (Swagger UI, bundled assets).',
          tags: ['discovery'],
          security: [],
          response: htmlPage,
        };
      }
    });

    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Options and Gamma-Exposure Analytics API', version: OPENAPI_VERSION, description: DESCRIPTION },
        servers: [{ url: '/' }],
        tags: [{ name: 'discovery', description: 'Discovery and metadata' }],
        components: { securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
        security: [{ ApiKeyAuth: [] }],
      },
      transform: (doc) => {
        const out = zodTransform(doc);
        // Swagger UI registers its page as '/v2/docs/'; document the canonical '/v2/docs'.
        return out.url === `${DOCS_PREFIX}/` ? { ...out, url: DOCS_PREFIX } : out;
      },
    });
    await app.register(swaggerUi, { routePrefix: DOCS_PREFIX, uiConfig: { deepLinking: true }, staticCSP: true });

    app.get('/v2/openapi.json', {
      config: { public: true },
      schema: {
        ...publicDoc,
        summary: 'OpenAPI document',
        description: 'OpenAPI 3.1 description of the API, generated from the route schemas.',
        response: { 200: z.record(z.string(), z.unknown()).describe('OpenAPI 3.1 document') },
      },
      handler: async () => app.swagger() as unknown as Record<string, unknown>,
    });

    app.get('/v2/redoc', {
      config: { public: true },
      schema: { ...publicDoc, summary: 'ReDoc', description: 'Reference documentation (ReDoc, bundled locally).', response: htmlPage },
      handler: async (_req, reply) => reply.type('text/html; charset=utf-8').send(REDOC_HTML),
    });

    let bundle: Buffer | undefined;
    app.get('/v2/redoc/redoc.standalone.js', {
      config: { public: true },
      schema: { hide: true },
      handler: async (_req, reply) => {
        bundle ??= await readFile(require.resolve('redoc/bundles/redoc.standalone.js'));
        return reply.type('application/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=86400').send(bundle);
      },
    });
  },
  { name: 'gex-docs' },
);
