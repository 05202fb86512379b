/**
 * A seeded synthetic option-trade history for the dealer-flow tests and bench: one trade every `stepMs` on
 * average, daily 08:00 UTC expiries listed two weeks ahead, a few strikes, two venues, sizes with one to three
 * decimals (not exact in binary), and a share of redelivered duplicates (same id and ts).
 */
import type { OptionTrade, Venue } from '#schemas/events.ts';
import { prng } from '../../analytics/testing/synthetic-chain.ts';

export interface SyntheticTradeOptions {
  readonly seed: number;
  readonly startMs: number;
  readonly endMs: number;
  /** Mean gap between trades, ms. */
  readonly stepMs: number;
  /** Share of trades delivered twice, [0, 1). */
  readonly duplicateShare?: number;
}

const DAY = 86_400_000;
const VENUES: readonly Venue[] = ['deribit', 'okx'];
const STRIKES = [90_000, 95_000, 100_000, 105_000, 110_000];

export function syntheticTrades(o: SyntheticTradeOptions): OptionTrade[] {
  const rand = prng(o.seed);
  const out: OptionTrade[] = [];
  let ts = o.startMs;
  let n = 0;
  while (true) {
    ts += 1 + Math.floor(rand() * 2 * o.stepMs);
    if (ts > o.endMs) break;
    const firstExpiry = Math.floor((ts - 8 * 3_600_000) / DAY) * DAY + DAY + 8 * 3_600_000;
    const expiry = firstExpiry + Math.floor(rand() * 14) * DAY;
    const strike = STRIKES[Math.floor(rand() * STRIKES.length)] ?? 100_000;
    const optionType = rand() < 0.5 ? 'call' : 'put';
    const venue = VENUES[Math.floor(rand() * VENUES.length)] ?? 'deribit';
    const instrument = `BTC-${new Date(expiry).toISOString().slice(0, 10)}-${strike}-${optionType === 'call' ? 'C' : 'P'}`;
    const size = Math.round(rand() * 10 ** (1 + Math.floor(rand() * 3)) * 10) / 10 ** (1 + Math.floor(rand() * 3)) + 0.1;
    const priceUsd = 500 + Math.round(rand() * 5000);
    const trade: OptionTrade = {
      venue,
      symbol: 'BTCUSDT',
      ts,
      receivedAt: ts + 5,
      id: `${venue}:${instrument}:${n}`,
      instrument,
      strike,
      expiry,
      optionType,
      price: priceUsd / 100_000,
      priceCurrency: 'BTC',
      priceUsd,
      size,
      premiumUsd: priceUsd * size,
      side: rand() < 0.5 ? 'buy' : 'sell',
      iv: 0.4 + rand() * 0.4,
      indexPrice: 100_000,
      underlyingPrice: 100_000,
      tradeId: String(n),
      block: rand() < 0.05,
    };
    out.push(trade);
    if (rand() < (o.duplicateShare ?? 0)) out.push({ ...trade, receivedAt: trade.receivedAt + 1_000 });
    n++;
  }
  return out;
}
