import type { VenueUrls as ConnectorUrls } from '#ingest/connector/types.ts';
import type { VenueUrls as SandboxUrls } from './servers/types.ts';
import type { SandboxVenue } from './market/venues.ts';

/**
 * The base-URL overrides that point a venue's real connector at its sandbox server. Keys are the connector's
 * own URL names (see each ingest/<venue>/index.ts); the connector code itself runs unchanged.
 */
export function connectorUrlsFor(venue: SandboxVenue, s: SandboxUrls): ConnectorUrls {
  const ws = (role: string): string => {
    const u = s.ws[role];
    if (!u) throw new Error(`sandbox ${venue} serves no '${role}' WebSocket`);
    return u;
  };
  switch (venue) {
    case 'deribit':
      return { ws: ws('main'), rest: s.rest };
    case 'bybit':
      return { option: ws('option'), linear: ws('linear'), spot: ws('spot'), rest: s.rest };
    case 'okx':
      return { public: ws('public'), rest: s.rest };
    case 'binance':
      return { public: ws('public'), market: ws('market'), spot: ws('spot'), eapi: s.rest, fapi: s.rest, api: s.rest };
    case 'derive':
      return { ws: ws('main'), rest: `${s.rest}/v3` };
    case 'thalex':
      return { ws: ws('main'), rest: `${s.rest}/api/v2` };
    case 'delta_india':
    case 'delta':
      return { ws: ws('main'), rest: s.rest };
    case 'bullish':
      return { ws: ws('host'), rest: s.rest };
    case 'paradex':
      return { ws: `${ws('main')}?sbeSchemaId=1&sbeSchemaVersion=1`, rest: `${s.rest}/v1` };
  }
}
