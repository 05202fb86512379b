/**
 * The tape computations from a list of normalized option trades (the researcher CLI `gex flow`), with the
 * routes' selection rules: trades deduplicated by (venue, id), ts ≤ now. Pure.
 *   by-strike     contracts with expiry date (UTC) ≥ today, every trade (cumulative) → flowByStrike
 *   strike-heat   trades in (now − hours, now] → strikeHeat
 *   premium-tide  deribit trades in the horizon's window on its contracts → premiumTide
 */
import type { MarketSymbol, OptionTrade } from '#schemas/events.ts';
import { flowByStrike, type FlowByStrike, type FlowCell } from './flow-by-strike.ts';
import { premiumTide, tideWindow, type TideCell, type TidePoint } from './premium-tide.ts';
import { strikeHeat, type SidePremium, type StrikeHeatRow } from './strike-heat.ts';

const DAY = 86_400_000;

/** Trades of the symbol with ts ≤ now, one per (venue, id) (a redelivered copy is dropped). */
export function selectTrades(trades: readonly OptionTrade[], symbol: MarketSymbol, nowMs: number): OptionTrade[] {
  const seen = new Set<string>();
  const out: OptionTrade[] = [];
  for (const t of trades) {
    const key = `${t.venue}\u0000${t.id}`;
    if (t.symbol !== symbol || t.ts > nowMs || seen.has(key) || !Number.isFinite(t.size) || !Number.isFinite(t.premiumUsd)) continue;
    seen.add(key);
    out.push(t);
  }
  return out;
}

export function flowByStrikeOf(trades: readonly OptionTrade[], nowMs: number): FlowByStrike {
  const today = nowMs - (nowMs % DAY);
  const cells: FlowCell[] = trades
    .filter((t) => t.expiry - (t.expiry % DAY) >= today)
    .map((t) => ({ strike: t.strike, type: t.optionType, side: t.side, venue: t.venue, size: t.size, premium: t.premiumUsd, trades: 1 }));
  return flowByStrike(cells);
}

export function strikeHeatOf(trades: readonly OptionTrade[], nowMs: number, hours = 24, rows = 25): StrikeHeatRow[] {
  const from = nowMs - hours * 3_600_000;
  const input: SidePremium[] = trades
    .filter((t) => t.ts > from)
    .map((t) => ({ strike: t.strike, side: t.side, premium: t.premiumUsd, trades: 1 }));
  return strikeHeat(input, rows);
}

export function premiumTideOf(trades: readonly OptionTrade[], nowMs: number, horizon: '0dte' | 'weekly' = '0dte'): TidePoint[] {
  const w = tideWindow(horizon, nowMs);
  const cells: TideCell[] = trades
    .filter((t) => t.venue === 'deribit' && t.ts >= w.fromMs && t.expiry > w.fromMs && t.expiry <= w.expiryToMs)
    .map((t) => ({
      t: w.fromMs + Math.floor((t.ts - w.fromMs) / w.stepMs) * w.stepMs,
      type: t.optionType,
      side: t.side,
      premium: t.premiumUsd,
      notional: t.size * (t.indexPrice ?? t.underlyingPrice ?? 0),
    }));
  return premiumTide(cells, w.fromMs, nowMs, w.stepMs);
}
