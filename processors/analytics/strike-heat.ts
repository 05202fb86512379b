/**
 * Strike heat (/v2/tape/strike-heat): per strike the taker-bought and taker-sold option premium (USD), net =
 * buy − sell, total = buy + sell, and trade counts, ranked by |net| descending (ties: larger total, then lower
 * strike), the first `rows` kept. Input: premium and trade count per (strike, taker side). Pure.
 */

export interface SidePremium {
  readonly strike: number;
  readonly side: string;
  /** Σ premium_usd of the side's trades. */
  readonly premium: number;
  readonly trades: number;
}

export interface StrikeHeatRow {
  readonly strike: number;
  readonly buy_premium_usd: number;
  readonly sell_premium_usd: number;
  readonly net_premium_usd: number;
  readonly total_premium_usd: number;
  readonly trades: number;
  readonly buy_trades: number;
  readonly sell_trades: number;
}

export function strikeHeat(input: readonly SidePremium[], rows: number): StrikeHeatRow[] {
  const by = new Map<number, { buy: number; sell: number; buyN: number; sellN: number }>();
  for (const r of [...input].sort((a, b) => a.strike - b.strike || (a.side < b.side ? -1 : 1))) {
    let s = by.get(r.strike);
    if (s === undefined) by.set(r.strike, (s = { buy: 0, sell: 0, buyN: 0, sellN: 0 }));
    if (r.side === 'buy') {
      s.buy += r.premium;
      s.buyN += r.trades;
    } else {
      s.sell += r.premium;
      s.sellN += r.trades;
    }
  }
  const out: StrikeHeatRow[] = [...by].map(([strike, s]) => ({
    strike,
    buy_premium_usd: s.buy,
    sell_premium_usd: s.sell,
    net_premium_usd: s.buy - s.sell,
    total_premium_usd: s.buy + s.sell,
    trades: s.buyN + s.sellN,
    buy_trades: s.buyN,
    sell_trades: s.sellN,
  }));
  out.sort(
    (a, b) => Math.abs(b.net_premium_usd) - Math.abs(a.net_premium_usd) || b.total_premium_usd - a.total_premium_usd || a.strike - b.strike,
  );
  return out.slice(0, rows);
}
