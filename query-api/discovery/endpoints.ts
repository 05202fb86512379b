import { endpointsData } from './schemas.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type DiscoveryContext } from './context.ts';

/** GET /v2/endpoints: generated from the registered route schemas (via the OpenAPI document). */
export async function endpointsRoute(app: ApiInstance, ctx: DiscoveryContext): Promise<void> {
  app.get('/v2/endpoints', {
    schema: {
      tags: [TAG],
      summary: 'Route catalog',
      description:
        'One entry per route: path, methods, tag, summary, description and parameters (location, required, type, default, bounds, enum).',
      response: responses(endpointsData, { auth: true }),
    },
    handler: async (request) => {
      const endpoints = ctx.endpoints();
      return ctx.respond.ok(request, {
        count: endpoints.length,
        endpoints: endpoints.map((e) => ({ ...e, methods: [...e.methods], parameters: [...e.parameters] })),
      });
    },
  });
}
