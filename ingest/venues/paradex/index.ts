/**
 * Paradex connector spec: one socket on `wss://ws.api.prod.paradex.trade/v1` with SBE negotiated in the URL
 * (`sbeSchemaId=1&sbeSchemaVersion=1`; mandatory for public channels from 21 Sep 2026). Subscribes are JSON-RPC
 * text, one channel per call; channel data arrives as binary SBE frames, decoded by `parseBinary`. The server
 * pings every 55 s (protocol pongs by the ws library).
 */
import { guard, restGuard } from '../../connector/parse-helpers.ts';
import type { HeartbeatRule, ParseResult, ParserContext, VenueConnectorSpec, VenueUrls } from '../../connector/types.ts';
import { paradexInstrumentFromName, parseParadexMarkets } from './instruments.ts';
import { parseParadexBinary, parseParadexFrame } from './parse.ts';

export const PARADEX_URLS: VenueUrls = {
  ws: 'wss://ws.api.prod.paradex.trade/v1?sbeSchemaId=1&sbeSchemaVersion=1',
  rest: 'https://api.prod.paradex.trade/v1',
};

const HEARTBEAT: HeartbeatRule = { kind: 'protocol_ping', serverPingEveryMs: 55_000, maxConnectionMs: 24 * 3600_000 };

/** A spec whose binary frames must be handed over as bytes (framework change: see ingest/README.md, Paradex). */
export interface BinaryConnectorSpec extends VenueConnectorSpec {
  parseBinary(frame: Uint8Array, ctx: ParserContext): ParseResult;
}

export function createParadexConnector(overrides: VenueUrls = {}): BinaryConnectorSpec {
  const urls: VenueUrls = { ...PARADEX_URLS, ...overrides };
  return {
    venue: 'paradex',
    urls,
    instrumentRequests() {
      return [
        {
          id: 'paradex:markets',
          url: `${urls['rest'] ?? ''}/markets`,
          parse: restGuard((b, ctx) => parseParadexMarkets(b, ctx.receivedAt)),
        },
      ];
    },
    connections(symbols, instruments) {
      const wanted = new Set<string>(symbols);
      const channels: string[] = [];
      const perps: string[] = [];
      for (const i of instruments) {
        if (i.venue !== 'paradex' || !wanted.has(i.symbol) || !i.active || (i.kind !== 'option' && i.kind !== 'perp')) continue;
        channels.push(`trades.${i.instrument}`);
        if (i.kind === 'perp') perps.push(`funding_data.${i.instrument}`);
      }
      if (channels.length === 0) return [];
      const all = [...channels, ...perps, 'markets_summary'];
      const subscribeFrames = all.map((channel, n) =>
        JSON.stringify({ jsonrpc: '2.0', method: 'subscribe', params: { channel }, id: 100 + n }),
      );
      return [{ id: 'public', url: urls['ws'] ?? '', subscribeFrames, heartbeat: HEARTBEAT }];
    },
    pollers() {
      return [];
    },
    parse: guard(parseParadexFrame),
    parseBinary: (frame, ctx) => {
      try {
        return parseParadexBinary(frame, ctx);
      } catch (err) {
        return {
          ok: false,
          outcome: 'dead_letter',
          reason: `parser error: ${err instanceof Error ? err.message : String(err)}`,
          channel: '',
        };
      }
    },
    instrumentFromName: paradexInstrumentFromName,
  };
}

export const paradexConnector: BinaryConnectorSpec = createParadexConnector();
