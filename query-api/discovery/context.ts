import type { EndpointEntry } from './catalog.ts';
import type { MarketData } from './market-data.ts';
import type { AppContext } from '../types.ts';

/** Shared by the discovery route files. */
export interface DiscoveryContext extends AppContext {
  readonly market: MarketData;
  /** The generated endpoint listing (computed once the app is ready). */
  endpoints(): readonly EndpointEntry[];
  /** Absolute (PUBLIC_BASE_URL) or relative link to a path. */
  link(path: string): string;
}

export const TAG = 'discovery';
