import type { Config } from '../../floor/config/settings.ts';
import type { Venue } from '../../../schemas/events.ts';
import type { VenueUrls } from '../../../ingest/types.ts';
import { startSandbox, type Sandbox } from '../../../ingest/sandbox/sandbox.ts';
import { SANDBOX_VENUES, type SandboxVenue } from '../../../ingest/sandbox/market/venues.ts';
import { connectorUrlsFor } from '../../../ingest/sandbox/connector-urls.ts';
import { childLogger } from '../../floor/log.ts';

/** Ledger entries the demo's sandbox keeps per venue: none (nothing in the product reads them; counts stay exact). */
export const DEMO_LEDGER_CAPACITY = 0;

/** The local sandbox market for the configured venues, and the URL overrides that aim the connectors at it. */
export async function startSandboxFeed(config: Config): Promise<{ sandbox: Sandbox; urls: Partial<Record<Venue, VenueUrls>>; stop(): Promise<void> }> {
  const venues = config.venues.filter((v): v is SandboxVenue => (SANDBOX_VENUES as readonly string[]).includes(v));
  const skipped = config.venues.filter((v) => !(SANDBOX_VENUES as readonly string[]).includes(v));
  if (skipped.length) childLogger('sandbox').warn({ skipped }, 'the sandbox does not serve these venues yet');
  // A long-running demo keeps no ledger entries (the ledgers are for tests): memory does not grow with uptime.
  const sandbox = await startSandbox({ seed: config.sandboxSeed, venues, symbols: config.symbols, ledgerCapacity: DEMO_LEDGER_CAPACITY });
  const urls: Partial<Record<Venue, VenueUrls>> = {};
  for (const v of venues) {
    const u = sandbox.urls[v];
    if (u) urls[v] = connectorUrlsFor(v, u);
  }
  return { sandbox, urls, stop: () => sandbox.stop() };
}
