/** Bybit V5 connector spec: option / linear / spot public streams, JSON ping every 20 s, 10 args per subscribe. */
import { chunk, guard, restGuard } from '../../connector/parse-helpers.ts';
import { SYMBOL_BASE } from '#schemas/events.ts';
import type { ConnectionPlan, HeartbeatRule, RestRequest, VenueConnectorSpec, VenueUrls } from '../../connector/types.ts';
import { bybitInstrumentFromName, parseBybitInstruments } from './instruments.ts';
import { parseBybitFrame } from './parse.ts';
import { bybitGapFill } from './gap-fill.ts';

export const BYBIT_URLS: VenueUrls = {
  option: 'wss://stream.bybit.com/v5/public/option',
  linear: 'wss://stream.bybit.com/v5/public/linear',
  spot: 'wss://stream.bybit.com/v5/public/spot',
  rest: 'https://api.bybit.com',
};

/** Spot allows 10 args per subscribe request; use it everywhere. Options allow 2000 args per connection. */
export const BYBIT_ARGS_PER_FRAME = 10;
export const BYBIT_OPTION_ARGS_PER_CONNECTION = 2000;

const HEARTBEAT: HeartbeatRule = { kind: 'app_ping', intervalMs: 20_000, payload: '{"op":"ping"}' };

function frames(args: readonly string[]): string[] {
  return chunk(args, BYBIT_ARGS_PER_FRAME).map((a, n) => JSON.stringify({ op: 'subscribe', req_id: String(n + 1), args: a }));
}

export function createBybitConnector(overrides: VenueUrls = {}): VenueConnectorSpec {
  const urls: VenueUrls = { ...BYBIT_URLS, ...overrides };
  const rest = urls['rest'] ?? '';
  const listing = (id: string, url: string): RestRequest => ({
    id,
    url,
    parse: restGuard((body, ctx) => parseBybitInstruments(body, url, ctx.receivedAt)),
  });
  return {
    venue: 'bybit',
    urls,
    instrumentRequests(symbols) {
      return symbols.flatMap((s) => {
        const base = SYMBOL_BASE[s];
        return [
          listing(`bybit:option:${base}`, `${rest}/v5/market/instruments-info?category=option&baseCoin=${base}&limit=1000`),
          listing(`bybit:linear:${base}`, `${rest}/v5/market/instruments-info?category=linear&baseCoin=${base}&limit=1000`),
          listing(`bybit:spot:${s}`, `${rest}/v5/market/instruments-info?category=spot&symbol=${s}`),
        ];
      });
    },
    connections(symbols, instruments) {
      const wanted = new Set<string>(symbols);
      const optionBases = new Set<string>();
      const optionTickers: string[] = [];
      const linear: string[] = [];
      const spot: string[] = [];
      for (const i of instruments) {
        if (i.venue !== 'bybit' || !wanted.has(i.symbol) || !i.active) continue;
        if (i.kind === 'option') {
          optionBases.add(SYMBOL_BASE[i.symbol]);
          optionTickers.push(`tickers.${i.instrument}`);
        } else if (i.kind === 'perp')
          linear.push(`publicTrade.${i.instrument}`, `tickers.${i.instrument}`, `allLiquidation.${i.instrument}`);
        else if (i.kind === 'spot' && i.quoteCurrency === 'USDT') spot.push(`publicTrade.${i.instrument}`);
      }
      const plans: ConnectionPlan[] = [];
      const optionArgs = [...[...optionBases].map((b) => `publicTrade.${b}`), ...optionTickers];
      chunk(optionArgs, BYBIT_OPTION_ARGS_PER_CONNECTION).forEach((args, n) => {
        plans.push({ id: `option-${n}`, url: urls['option'] ?? '', subscribeFrames: frames(args), heartbeat: HEARTBEAT });
      });
      if (linear.length > 0) plans.push({ id: 'linear', url: urls['linear'] ?? '', subscribeFrames: frames(linear), heartbeat: HEARTBEAT });
      if (spot.length > 0) plans.push({ id: 'spot', url: urls['spot'] ?? '', subscribeFrames: frames(spot), heartbeat: HEARTBEAT });
      return plans;
    },
    pollers() {
      return [];
    },
    parse: guard(parseBybitFrame),
    instrumentFromName: bybitInstrumentFromName,
    gapFill: bybitGapFill(rest),
  };
}

export const bybitConnector: VenueConnectorSpec = createBybitConnector();
