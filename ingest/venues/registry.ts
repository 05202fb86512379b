import type { Venue } from '#schemas/events.ts';
import type { VenueConnectorSpec, VenueUrls } from '../connector/types.ts';
import { createDeribitConnector } from './deribit/index.ts';
import { createBybitConnector } from './bybit/index.ts';
import { createOkxConnector } from './okx/index.ts';
import { createBinanceConnector } from './binance/index.ts';
import { createDeriveConnector } from './derive/index.ts';
import { createThalexConnector } from './thalex/index.ts';
import { createDeltaConnector } from './delta/index.ts';
import { createBullishConnector } from './bullish/index.ts';
import { createParadexConnector } from './paradex/index.ts';

/** Connector factory of every venue that has one; base URLs default to production, overridable (sandbox). */
const FACTORIES: Partial<Record<Venue, (urls: VenueUrls) => VenueConnectorSpec>> = {
  deribit: createDeribitConnector,
  bybit: createBybitConnector,
  okx: createOkxConnector,
  binance: createBinanceConnector,
  derive: createDeriveConnector,
  thalex: createThalexConnector,
  delta_india: (urls) => createDeltaConnector('delta_india', urls),
  delta: (urls) => createDeltaConnector('delta', urls),
  bullish: createBullishConnector,
  paradex: createParadexConnector,
};

export function connectorVenues(): readonly Venue[] {
  return Object.keys(FACTORIES) as Venue[];
}

export function createConnector(venue: Venue, urls: VenueUrls = {}): VenueConnectorSpec {
  const factory = FACTORIES[venue];
  if (!factory) throw new Error(`no connector for venue '${venue}' (available: ${connectorVenues().join(', ')})`);
  return factory(urls);
}
