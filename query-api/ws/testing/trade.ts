/** An option trade for the feed and replay tests: a deribit BTC 100k call, 1 contract at 1,000 USD, numbered `n`. */
import type { MarketSymbol, OptionTrade } from '#schemas/events.ts';

export interface TradeShape {
  readonly symbol?: MarketSymbol;
  /** Characters added to the instrument name (larger frames). */
  readonly pad?: number;
  /** Id prefix: ids are `deribit:<prefix>:<n>`. */
  readonly prefix?: string;
}

export function feedTrade(ts: number, n: number, shape: TradeShape = {}): OptionTrade {
  return {
    venue: 'deribit',
    symbol: shape.symbol ?? 'BTCUSDT',
    ts,
    receivedAt: ts + 5,
    id: `deribit:${shape.prefix ?? 't'}:${n}`,
    instrument: `BTC-27MAR26-100000-C${'X'.repeat(shape.pad ?? 0)}`,
    strike: 100_000,
    expiry: Date.UTC(2026, 2, 27, 8),
    optionType: 'call',
    price: 0.01,
    priceCurrency: 'BTC',
    priceUsd: 1_000,
    size: 1,
    premiumUsd: 1_000,
    side: 'buy',
    iv: 0.5,
    indexPrice: 100_000,
    underlyingPrice: 100_100,
    tradeId: String(n),
    block: false,
  };
}
