/** Deribit connector spec: public 100ms channels (no auth), JSON-RPC heartbeat with test_request replies. */
import { chunk, guard, restGuard } from '../../connector/parse-helpers.ts';
import type { Instrument, MarketSymbol } from '#schemas/events.ts';
import type { ConnectionPlan, HeartbeatRule, VenueConnectorSpec, VenueUrls } from '../../connector/types.ts';
import { dvolHistoryPollers } from './dvol-history.ts';
import { deribitGapFill } from './gap-fill.ts';
import { deribitInstrumentFromName, parseDeribitInstruments } from './instruments.ts';
import { indexNameFor, parseDeribitName } from './names.ts';
import { parseDeribitFrame } from './parse.ts';

export const DERIBIT_URLS: VenueUrls = {
  ws: 'wss://www.deribit.com/ws/api/v2',
  rest: 'https://www.deribit.com',
};

/** Channels per subscribe request, and option-ticker channels per connection. */
const CHANNELS_PER_FRAME = 100;
const TICKERS_PER_CONNECTION = 500;

const HEARTBEAT: HeartbeatRule = {
  kind: 'server_test_request',
  setup: '{"jsonrpc":"2.0","id":1,"method":"public/set_heartbeat","params":{"interval":10}}',
  timeoutMs: 30_000,
};

function subscribeFrame(channels: readonly string[], n: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 100 + n, method: 'public/subscribe', params: { channels } });
}

export function deribitChannels(
  symbols: readonly MarketSymbol[],
  instruments: readonly Instrument[],
): {
  readonly main: string[];
  readonly indexes: string[];
  readonly optionTickers: string[];
} {
  const wanted = new Set<string>(symbols);
  const main = new Set<string>();
  const indexes = new Set<string>();
  const optionTickers: string[] = [];
  for (const i of instruments) {
    if (i.venue !== 'deribit' || !wanted.has(i.symbol) || !i.active) continue;
    const p = parseDeribitName(i.instrument);
    if (p === null) continue;
    if (i.kind === 'option') {
      main.add(`trades.option.${i.settlementCurrency}.100ms`);
      optionTickers.push(`ticker.${i.instrument}.100ms`);
    } else if (i.kind === 'perp') {
      main.add(`trades.${i.instrument}.100ms`);
      main.add(`ticker.${i.instrument}.100ms`);
    } else continue;
    const idx = indexNameFor(p.base, p.linearQuote);
    indexes.add(`deribit_price_index.${idx}`);
    if (p.linearQuote === null) indexes.add(`deribit_volatility_index.${idx}`);
  }
  return { main: [...main], indexes: [...indexes], optionTickers };
}

export function createDeribitConnector(overrides: VenueUrls = {}): VenueConnectorSpec {
  const urls: VenueUrls = { ...DERIBIT_URLS, ...overrides };
  const ws = urls['ws'] ?? '';
  const rest = urls['rest'] ?? '';
  return {
    venue: 'deribit',
    urls,
    instrumentRequests() {
      return [
        {
          id: 'deribit:instruments',
          url: `${rest}/api/v2/public/get_instruments?currency=any&expired=false`,
          parse: restGuard((body, ctx) => parseDeribitInstruments(body, ctx.receivedAt)),
        },
      ];
    },
    connections(symbols, instruments) {
      const ch = deribitChannels(symbols, instruments);
      const plans: ConnectionPlan[] = [];
      // index / DVOL in their own frames: an unknown index name must not reject the trade subscriptions.
      const groups = [...chunk(ch.main, CHANNELS_PER_FRAME), ...ch.indexes.map((c) => [c])];
      const frames = groups.map(subscribeFrame);
      if (frames.length > 0) plans.push({ id: 'public', url: ws, subscribeFrames: frames, heartbeat: HEARTBEAT });
      chunk(ch.optionTickers, TICKERS_PER_CONNECTION).forEach((group, n) => {
        plans.push({
          id: `tickers-${n}`,
          url: ws,
          subscribeFrames: chunk(group, CHANNELS_PER_FRAME).map(subscribeFrame),
          heartbeat: HEARTBEAT,
        });
      });
      return plans;
    },
    pollers(symbols) {
      return dvolHistoryPollers(rest, symbols);
    },
    parse: guard(parseDeribitFrame),
    instrumentFromName: deribitInstrumentFromName,
    gapFill: deribitGapFill(rest),
  };
}

export const deribitConnector: VenueConnectorSpec = createDeribitConnector();
