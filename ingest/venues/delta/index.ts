/**
 * Delta Exchange connector spec, one implementation for `delta_india` and `delta` (global), parameterised by
 * venue and host. Market data uses the public socket's compact channels (2026-04 change; the legacy
 * `v2/ticker`/`all_trades` channels are not used). Keep-alive: `enable_heartbeat`, server heartbeat every 30 s.
 */
import { guard, restGuard } from '../../connector/parse-helpers.ts';
import type { HeartbeatRule, VenueConnectorSpec, VenueUrls } from '../../connector/types.ts';
import { deltaChainName, deltaProductsUrl, parseDeltaProducts } from './instruments.ts';
import { parseDeltaFrame } from './parse.ts';

export type DeltaVenue = 'delta_india' | 'delta';

export const DELTA_URLS: Readonly<Record<DeltaVenue, VenueUrls>> = {
  delta_india: { ws: 'wss://public-socket.india.delta.exchange', rest: 'https://api.india.delta.exchange' },
  // VERIFY: the global docs list only the India public socket (likely a copy-paste); global symbols on socket.delta.exchange
  delta: { ws: 'wss://socket.delta.exchange', rest: 'https://api.delta.exchange' },
};

/** Enabling sends `{"type":"heartbeat"}` every 30 s; reconnect after 35 s of silence (Delta docs). */
const HEARTBEAT: HeartbeatRule = { kind: 'server_test_request', setup: '{"type":"enable_heartbeat"}', timeoutMs: 35_000 };

export function createDeltaConnector(venue: DeltaVenue, overrides: VenueUrls = {}): VenueConnectorSpec {
  const urls: VenueUrls = { ...DELTA_URLS[venue], ...overrides };
  const productsUrl = deltaProductsUrl(urls['rest'] ?? '');
  return {
    venue,
    urls,
    instrumentRequests() {
      return [
        {
          id: `${venue}:products`,
          url: productsUrl,
          parse: restGuard((b, ctx) => parseDeltaProducts(venue, b, ctx.receivedAt, productsUrl)),
        },
      ];
    },
    connections(symbols, instruments) {
      const wanted = new Set<string>(symbols);
      const perps: string[] = [];
      const chains = new Set<string>();
      for (const i of instruments) {
        if (i.venue !== venue || !wanted.has(i.symbol) || !i.active) continue;
        if (i.kind === 'perp') perps.push(i.instrument);
        else if (i.kind === 'option' && i.expiry !== null) chains.add(deltaChainName(i.instrument.split('-')[1] ?? '', i.expiry));
      }
      const channels: { name: string; symbols: string[] }[] = [];
      const tradeSymbols = [...(chains.size > 0 ? ['call_options', 'put_options'] : []), ...perps];
      if (tradeSymbols.length > 0) channels.push({ name: 'trades', symbols: tradeSymbols });
      const tickerSymbols = [...chains, ...perps];
      if (tickerSymbols.length > 0) channels.push({ name: 'ticker', symbols: tickerSymbols });
      if (perps.length > 0)
        channels.push({ name: 'funding_rate', symbols: perps }, { name: 'mark_price', symbols: perps.map((p) => `MARK:${p}`) });
      if (channels.length === 0) return [];
      return [
        {
          id: 'public',
          url: urls['ws'] ?? '',
          subscribeFrames: [JSON.stringify({ type: 'subscribe', payload: { channels } })],
          heartbeat: HEARTBEAT,
        },
      ];
    },
    pollers() {
      return [];
    },
    parse: guard(parseDeltaFrame),
    /** Sizes need `contract_value` from the listing: no name-only fallback. */
    instrumentFromName: () => null,
  };
}

export const deltaIndiaConnector: VenueConnectorSpec = createDeltaConnector('delta_india');
export const deltaConnector: VenueConnectorSpec = createDeltaConnector('delta');
