/**
 * Thalex connector spec: one socket (`wss://thalex.com/ws/api/v2`), `public/subscribe` with channel lists
 * (no `jsonrpc` field, as the official client), keep-alive by client WebSocket protocol pings every 5 s.
 */
import { chunk, guard, restGuard } from '../../connector/parse-helpers.ts';
import type { HeartbeatRule, VenueConnectorSpec, VenueUrls } from '../../connector/types.ts';
import { parseThalexInstruments, thalexInstrumentFromName } from './instruments.ts';
import { parseThalexFrame } from './parse.ts';

export const THALEX_URLS: VenueUrls = { ws: 'wss://thalex.com/ws/api/v2', rest: 'https://thalex.com/api/v2' };

const CHANNELS_PER_FRAME = 100;
/** Thalex expects CLIENT protocol pings (official client and go-thalex: every 5 s). */
const HEARTBEAT: HeartbeatRule = { kind: 'client_protocol_ping', intervalMs: 5_000 };

export function createThalexConnector(overrides: VenueUrls = {}): VenueConnectorSpec {
  const urls: VenueUrls = { ...THALEX_URLS, ...overrides };
  return {
    venue: 'thalex',
    urls,
    instrumentRequests() {
      return [
        {
          id: 'thalex:instruments',
          url: `${urls['rest'] ?? ''}/public/instruments`,
          parse: restGuard((b, ctx) => parseThalexInstruments(b, ctx.receivedAt)),
        },
      ];
    },
    connections(symbols, instruments) {
      const wanted = new Set<string>(symbols);
      const underlyings = new Set<string>();
      const tickers: string[] = [];
      for (const i of instruments) {
        if (i.venue !== 'thalex' || !wanted.has(i.symbol) || !i.active || (i.kind !== 'option' && i.kind !== 'perp')) continue;
        underlyings.add(`${i.instrument.split('-')[0] ?? ''}USD`);
        tickers.push(`ticker.${i.instrument}.1000ms`);
      }
      const channels = [...[...underlyings].flatMap((u) => [`recent_trades.${u}.all`, `price_index.${u}`]), ...tickers];
      if (channels.length === 0) return [];
      const subscribeFrames = chunk(channels, CHANNELS_PER_FRAME).map((c, n) =>
        JSON.stringify({ method: 'public/subscribe', params: { channels: c }, id: 100 + n }),
      );
      return [{ id: 'public', url: urls['ws'] ?? '', subscribeFrames, heartbeat: HEARTBEAT }];
    },
    pollers() {
      return [];
    },
    parse: guard(parseThalexFrame),
    instrumentFromName: thalexInstrumentFromName,
  };
}

export const thalexConnector: VenueConnectorSpec = createThalexConnector();
