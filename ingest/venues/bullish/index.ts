/**
 * Bullish connector spec: three sockets on `wss://api.exchange.bullish.com` (a path per stream type), JSON-RPC
 * `subscribe` one message per symbol / asset, `keepalivePing` command every 30 s (no protocol ping).
 */
import { guard, restGuard } from '../../connector/parse-helpers.ts';
import { SYMBOL_BASE } from '#schemas/events.ts';
import type { ConnectionPlan, HeartbeatRule, VenueConnectorSpec, VenueUrls } from '../../connector/types.ts';
import { bullishInstrumentFromName, parseBullishMarkets } from './instruments.ts';
import { parseBullishFrame } from './parse.ts';

export const BULLISH_URLS: VenueUrls = { ws: 'wss://api.exchange.bullish.com', rest: 'https://api.exchange.bullish.com' };

const HEARTBEAT: HeartbeatRule = {
  kind: 'app_ping',
  intervalMs: 30_000,
  payload: '{"jsonrpc":"2.0","type":"command","method":"keepalivePing","params":{},"id":"0"}',
};

function sub(params: Readonly<Record<string, string>>, n: number): string {
  return JSON.stringify({ jsonrpc: '2.0', type: 'command', method: 'subscribe', params, id: String(100 + n) });
}

export function createBullishConnector(overrides: VenueUrls = {}): VenueConnectorSpec {
  const urls: VenueUrls = { ...BULLISH_URLS, ...overrides };
  const ws = urls['ws'] ?? '';
  return {
    venue: 'bullish',
    urls,
    instrumentRequests() {
      return [
        {
          id: 'bullish:markets',
          url: `${urls['rest'] ?? ''}/trading-api/v1/markets`,
          parse: restGuard((b, ctx) => parseBullishMarkets(b, ctx.receivedAt)),
        },
      ];
    },
    connections(symbols, instruments) {
      const wanted = new Set<string>(symbols);
      const names: string[] = [];
      const assets = new Set<string>();
      for (const i of instruments) {
        if (i.venue !== 'bullish' || !wanted.has(i.symbol) || !i.active || (i.kind !== 'option' && i.kind !== 'perp')) continue;
        names.push(i.instrument);
        assets.add(SYMBOL_BASE[i.symbol]);
      }
      if (names.length === 0) return [];
      const plan = (id: string, path: string, frames: string[]): ConnectionPlan => ({
        id,
        url: `${ws}${path}`,
        subscribeFrames: frames,
        heartbeat: HEARTBEAT,
      });
      return [
        plan(
          'index',
          '/trading-api/v1/index-data',
          [...assets].map((a, n) => sub({ topic: 'indexPrice', assetSymbol: a }, n)),
        ),
        plan(
          'trades',
          '/trading-api/v1/market-data/trades',
          names.map((s, n) => sub({ topic: 'anonymousTrades', symbol: s }, n)),
        ),
        plan(
          'tick',
          '/trading-api/v1/market-data/tick',
          names.map((s, n) => sub({ topic: 'tick', symbol: s }, n)),
        ),
      ];
    },
    pollers() {
      return [];
    },
    parse: guard(parseBullishFrame),
    instrumentFromName: bullishInstrumentFromName,
  };
}

export const bullishConnector: VenueConnectorSpec = createBullishConnector();
