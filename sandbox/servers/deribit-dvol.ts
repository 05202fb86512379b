/**
 * Sandbox `public/get_volatility_index_data` (Deribit DVOL candles). History before the simulated market started
 * does not exist, so the series is SYNTHETIC and deterministic: a pure function of (currency, hour) around the
 * symbol's long-run vol level (two slow waves, vol points, 2 decimals), the same answer on every call and run.
 * Response shape as documented by Deribit: `result.data` = newest-last candles `[ts, open, high, low, close]` of at
 * most PAGE candles ending at `end_timestamp` (clipped to now), `result.continuation` = the end_timestamp of the
 * next older page, null once `start_timestamp` is reached.
 */
import { SYMBOL_PARAMS } from '../market/symbols.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import type { RestReply } from './host.ts';

const PAGE = 1000;
const RESOLUTIONS: Readonly<Record<string, number>> = {
  '1': 1_000,
  '60': 60_000,
  '3600': 3_600_000,
  '43200': 43_200_000,
  '1D': 86_400_000,
};
const SYMBOL_OF: Readonly<Record<string, MarketSymbol>> = { BTC: 'BTCUSDT', ETH: 'ETHUSDT' };

/** The synthetic DVOL at instant `ts` (vol points). */
export function sandboxDvolAt(symbol: MarketSymbol, ts: number): number {
  const level = SYMBOL_PARAMS[symbol].volLevel * 100;
  const days = ts / 86_400_000;
  const v = level * (1 + 0.12 * Math.sin((2 * Math.PI * days) / 23) + 0.05 * Math.sin((2 * Math.PI * days) / 1.7));
  return Math.round(v * 100) / 100;
}

function invalid(param: string, reason: string): RestReply {
  return { status: 400, body: { jsonrpc: '2.0', error: { message: 'Invalid params', data: { reason, param }, code: -32602 } } };
}

export function volatilityIndexRest(query: URLSearchParams, now: number): RestReply {
  const symbol = SYMBOL_OF[query.get('currency') ?? ''];
  if (symbol === undefined) return invalid('currency', 'must be BTC or ETH');
  const step = RESOLUTIONS[query.get('resolution') ?? ''];
  if (step === undefined) return invalid('resolution', 'must be 1, 60, 3600, 43200 or 1D');
  const start = Number(query.get('start_timestamp'));
  const endQ = Number(query.get('end_timestamp'));
  if (!Number.isFinite(start) || !Number.isFinite(endQ)) return invalid('start_timestamp', 'timestamps must be numbers');
  const end = Math.min(endQ, now);
  const last = Math.floor(end / step) * step;
  const first = Math.max(Math.ceil(start / step) * step, last - (PAGE - 1) * step);
  const data: number[][] = [];
  for (let ts = first; ts <= last; ts += step) {
    const o = sandboxDvolAt(symbol, ts);
    const c = sandboxDvolAt(symbol, ts + step);
    data.push([ts, o, Math.max(o, c), Math.min(o, c), c]);
  }
  const continuation = first - step >= start && data.length > 0 ? first - 1 : null;
  return {
    status: 200,
    body: { jsonrpc: '2.0', result: { data, continuation }, usIn: now * 1000, usOut: now * 1000 + 50, usDiff: 50, testnet: false },
  };
}
