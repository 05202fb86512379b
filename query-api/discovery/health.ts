import { CURRENT_RELEASE } from './changelog-data.ts';
import { healthData } from './schemas.ts';
import { responses } from '../envelope/envelope-schemas.ts';
import type { ApiInstance, CacheHealth } from '../types.ts';
import { TAG, type DiscoveryContext } from './context.ts';

const PING_TIMEOUT_MS = 1000;

async function pingWithin(ping: () => Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([ping(), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

async function cacheCheck(fn: () => CacheHealth | Promise<CacheHealth>): Promise<CacheHealth> {
  try {
    return await fn();
  } catch {
    return { ok: false, age_seconds: null };
  }
}

/** GET /v2/health: real checks (store ping, snapshot-cache health); per-IP limited; no key. */
export async function healthRoute(app: ApiInstance, ctx: DiscoveryContext): Promise<void> {
  app.get('/v2/health', {
    config: { public: true, ipLimited: true },
    schema: {
      tags: [TAG],
      summary: 'Service health',
      description: `Overall status (ok, degraded when one subsystem fails, unhealthy when cache and database both fail) with per-subsystem flags. No API key; ${ctx.config.healthPerIpPerMinute} requests per minute per IP.`,
      security: [],
      response: responses(healthData, { auth: false }),
    },
    handler: async (request) => {
      const started = performance.now();
      const [database, cache] = await Promise.all([pingWithin(() => ctx.store.ping(), PING_TIMEOUT_MS), cacheCheck(ctx.cacheHealth)]);
      const latency = Math.round((performance.now() - started) * 10) / 10;
      const failing = (database ? 0 : 1) + (cache.ok ? 0 : 1);
      return ctx.respond.ok(request, {
        status: failing === 0 ? ('ok' as const) : failing === 1 ? ('degraded' as const) : ('unhealthy' as const),
        cache: cache.ok,
        database,
        checks: { cache: { ok: cache.ok, age_seconds: cache.age_seconds }, database: { ok: database, latency_ms: latency } },
        version: CURRENT_RELEASE,
      });
    },
  });
}
