/**
 * Trade figures of the chain rows (/v2/options/chain `trade_count`, `notional_volume`): per venue contract, the
 * trades printed in the chain's trade window and the premium paid in them (Σ size × price, USD; not the notional of
 * the underlying, which premium tide reports as `*_notional_usd`). The window is the 24 hours before the UTC minute
 * of the chain instant, whole minutes: [minute(t) − 24 h, minute(t)), so the figures of a stored instant depend only
 * on trades before it (as_of gives the same numbers whenever it is asked). Pure: the sums come from the store.
 */
import type { OptionType } from '#schemas/events.ts';
import type { ChainQuoteRow } from './chain-quotes.ts';

export const CHAIN_TRADE_WINDOW_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** The trade window of a chain instant, ms: [fromMs, toMs). */
export function chainTradeWindow(t: number): { readonly fromMs: number; readonly toMs: number } {
  const toMs = Math.floor(t / MINUTE_MS) * MINUTE_MS;
  return { fromMs: toMs - CHAIN_TRADE_WINDOW_MS, toMs };
}

export interface ContractTrades {
  readonly venue: string;
  readonly expiry: number;
  readonly strike: number;
  readonly option_type: OptionType;
  readonly trade_count: number;
  /** USD premium paid. */
  readonly notional_volume: number;
}

const keyOf = (r: { readonly venue: string; readonly expiry: number; readonly strike: number; readonly option_type: string }): string =>
  `${r.venue}|${r.expiry}|${r.strike}|${r.option_type}`;

/** The rows with their venue contract's trade figures (0 and 0 for a contract without trades in the window). */
export function withTrades<R extends ChainQuoteRow>(rows: readonly R[], trades: readonly ContractTrades[]): R[] {
  const byKey = new Map<string, ContractTrades>();
  for (const x of trades) byKey.set(keyOf(x), x);
  return rows.map((r) => {
    const x = byKey.get(keyOf(r));
    return { ...r, trade_count: x?.trade_count ?? 0, notional_volume: x?.notional_volume ?? 0 };
  });
}
