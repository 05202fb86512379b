/**
 * Derive v3 connector spec: one public socket (`wss://api.derive.xyz/v3/ws`), JSON-RPC `subscribe` with channel
 * lists, server protocol pings (no app heartbeat). Listings: POST `public/get_all_instruments` per currency and
 * type (options, perps); a currency without options answers an empty list, so availability is discovered.
 */
import { chunk, guard, restGuard, symbolForBase } from '../../connector/parse-helpers.ts';
import { SYMBOL_BASE } from '#schemas/events.ts';
import type { HeartbeatRule, RestRequest, VenueConnectorSpec, VenueUrls } from '../../connector/types.ts';
import { deriveInstrumentFromName, deriveListingBody, deriveListingUrl, parseDeriveInstruments } from './instruments.ts';
import { parseDeriveFrame } from './parse.ts';

export const DERIVE_URLS: VenueUrls = { ws: 'wss://api.derive.xyz/v3/ws', rest: 'https://api.derive.xyz/v3' };

const CHANNELS_PER_FRAME = 100;
const TICKER_INTERVAL_MS = 1000;
const HEARTBEAT: HeartbeatRule = { kind: 'protocol_ping', serverPingEveryMs: 30_000, maxConnectionMs: 24 * 3600_000 };

/** A POST listing: `body` is the v3 POST body (the runner POSTs it); `url` mirrors its fields in the query string. */
export interface DerivePostRequest extends RestRequest {
  readonly method: 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export function createDeriveConnector(overrides: VenueUrls = {}): VenueConnectorSpec {
  const urls: VenueUrls = { ...DERIVE_URLS, ...overrides };
  const rest = urls['rest'] ?? '';
  const listing = (type: string, ccy: string): DerivePostRequest => {
    const url = deriveListingUrl(rest, type, ccy, 1);
    return {
      id: `derive:${type}:${ccy}`,
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: deriveListingBody(type, ccy, 1),
      parse: restGuard((b, ctx) => parseDeriveInstruments(b, ctx.receivedAt, url)),
    };
  };
  return {
    venue: 'derive',
    urls,
    instrumentRequests(symbols) {
      return symbols.flatMap((s) => [listing('option', SYMBOL_BASE[s]), listing('perp', SYMBOL_BASE[s])]);
    },
    connections(symbols, instruments) {
      const wanted = new Set<string>(symbols);
      const channels = new Set<string>();
      const tickers: string[] = [];
      for (const i of instruments) {
        if (i.venue !== 'derive' || !wanted.has(i.symbol) || !i.active || (i.kind !== 'option' && i.kind !== 'perp')) continue;
        const ccy = i.instrument.split('-')[0] ?? '';
        if (symbolForBase(ccy) === null) continue;
        channels.add(`trades.${i.kind}.${ccy}`);
        channels.add(`spot_feed.${ccy}`);
        tickers.push(`ticker_slim.${i.instrument}.${TICKER_INTERVAL_MS}`);
      }
      const all = [...channels, ...tickers];
      if (all.length === 0) return [];
      const subscribeFrames = chunk(all, CHANNELS_PER_FRAME).map((c, n) =>
        JSON.stringify({ id: 100 + n, method: 'subscribe', params: { channels: c } }),
      );
      return [{ id: 'public', url: urls['ws'] ?? '', subscribeFrames, heartbeat: HEARTBEAT }];
    },
    pollers() {
      return [];
    },
    parse: guard(parseDeriveFrame),
    instrumentFromName: deriveInstrumentFromName,
  };
}

export const deriveConnector: VenueConnectorSpec = createDeriveConnector();
