/** Venue name -> connector spec factory (base URLs overridable, e.g. for the local sandbox). */
import type { Venue } from '../schemas/events.ts';
import { createBinanceConnector } from './binance/index.ts';
import { createBybitConnector } from './bybit/index.ts';
import { createDeribitConnector } from './deribit/index.ts';
import { createOkxConnector } from './okx/index.ts';
import type { VenueConnectorSpec, VenueUrls } from './types.ts';

const FACTORIES = {
  deribit: createDeribitConnector,
  bybit: createBybitConnector,
  okx: createOkxConnector,
  binance: createBinanceConnector,
} as const satisfies Partial<Record<Venue, (urls?: VenueUrls) => VenueConnectorSpec>>;

export type ConnectorVenue = keyof typeof FACTORIES;
export const CONNECTOR_VENUES = Object.keys(FACTORIES) as readonly ConnectorVenue[];

export function isConnectorVenue(v: string): v is ConnectorVenue {
  return Object.hasOwn(FACTORIES, v);
}

/** The connector for `venue`; throws for venues without a connector here (derive, thalex, ...). */
export function createConnector(venue: Venue | string, urls: VenueUrls = {}): VenueConnectorSpec {
  if (!isConnectorVenue(venue)) throw new Error(`no connector for venue ${venue}`);
  return FACTORIES[venue](urls);
}
