import type { Config } from '#platform/settings.ts';
import type { Venue } from '#schemas/events.ts';
import type { VenueUrls } from '#ingest/connector/types.ts';
import { startSandbox, type Sandbox } from '#sandbox/sandbox.ts';
import { SANDBOX_VENUES, type SandboxVenue } from '#sandbox/market/venues.ts';
import { connectorUrlsFor } from '#sandbox/connector-urls.ts';
import { childLogger } from '#platform/log.ts';
import { readFileSync } from 'node:fs';
import type { VenueUrls as SandboxUrls } from '#sandbox/servers/types.ts';

/** Ledger entries the demo's sandbox keeps per venue: none (nothing in the product reads them; counts stay exact). */
export const DEMO_LEDGER_CAPACITY = 0;

/** The local sandbox market for the configured venues, and the URL overrides that aim the connectors at it. */
export async function startSandboxFeed(
  config: Config,
): Promise<{ sandbox: Sandbox | null; urls: Partial<Record<Venue, VenueUrls>>; stop(): Promise<void> }> {
  if (config.sandboxUrls !== undefined) return { sandbox: null, urls: externalSandboxUrls(config), stop: () => Promise.resolve() };
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

/**
 * SANDBOX_URLS: a sandbox market running in another process (its `urls` as JSON in a file, e.g. the chaos harness's
 * sandbox): the configured venues it serves, aimed at it; nothing is started here.
 */
function externalSandboxUrls(config: Config): Partial<Record<Venue, VenueUrls>> {
  const served = JSON.parse(readFileSync(config.sandboxUrls as string, 'utf8')) as Partial<Record<SandboxVenue, SandboxUrls>>;
  const urls: Partial<Record<Venue, VenueUrls>> = {};
  for (const v of config.venues) {
    const u = (SANDBOX_VENUES as readonly string[]).includes(v) ? served[v as SandboxVenue] : undefined;
    if (u) urls[v] = connectorUrlsFor(v as SandboxVenue, u);
  }
  return urls;
}
