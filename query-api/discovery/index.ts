import { endpointsFromOpenApi, type EndpointEntry, type OpenApiDocument } from './catalog.ts';
import { MarketData } from './market-data.ts';
import type { RouteFamily } from '../types.ts';
import { changelogRoute } from './changelog.ts';
import type { DiscoveryContext } from './context.ts';
import { endpointsRoute } from './endpoints.ts';
import { expiriesRoute } from './expiries.ts';
import { healthRoute } from './health.ts';
import { metaRoute } from './meta.ts';
import { statusRoute } from './status.ts';
import { symbolsRoute } from './symbols.ts';

/** The discovery and metadata family: health, meta, endpoints, changelog, symbols, expiries, status. */
export const discoveryRoutes: RouteFamily = async (app, ctx) => {
  let endpoints: readonly EndpointEntry[] | undefined;
  const base = ctx.config.publicBaseUrl.replace(/\/+$/, '');
  const dctx: DiscoveryContext = {
    ...ctx,
    historyPolicy: ctx.historyPolicy,
    market: new MarketData(ctx.store, ctx.clock, app.log, ctx.config.discoveryCacheMs),
    endpoints: () => (endpoints ??= endpointsFromOpenApi(app.swagger() as unknown as OpenApiDocument, 'X-API-Key')),
    link: (path) => `${base}${path}`,
  };
  for (const route of [healthRoute, metaRoute, endpointsRoute, changelogRoute, symbolsRoute, expiriesRoute, statusRoute]) {
    await route(app, dctx);
  }
};
