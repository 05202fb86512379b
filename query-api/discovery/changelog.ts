import { CURRENT_RELEASE, RELEASES, V1_STATUS } from './changelog-data.ts';
import { changelogData } from './schemas.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance } from '../types.ts';
import { TAG, type DiscoveryContext } from './context.ts';

/** GET /v2/changelog: release history newest first, v1 lifecycle. */
export async function changelogRoute(app: ApiInstance, ctx: DiscoveryContext): Promise<void> {
  const data = {
    current_version: CURRENT_RELEASE,
    v1_status: V1_STATUS,
    releases: RELEASES.map((r) => ({ ...r, changes: [...r.changes] })),
    docs_url: ctx.link('/v2/docs'),
    openapi_url: ctx.link('/v2/openapi.json'),
  };
  app.get('/v2/changelog', {
    schema: {
      tags: [TAG],
      summary: 'Release history',
      description: 'Releases newest first with a `breaking` flag; `v1_status` is the lifecycle of the previous API generation.',
      response: responses(changelogData, { auth: true }),
    },
    handler: async (request) => ctx.respond.ok(request, data),
  });
}
