import type { MarketSymbol, OptionType } from '#schemas/events.ts';
import { ddmmyy, dmmmyy, yyyymmdd, type CalendarPolicy } from './calendar.ts';
import type { LinearSpec, OptionSeriesSpec, VenueSpec } from './venue-spec.ts';

/**
 * Sandbox listings of the five smaller venues (Derive, Thalex, Delta India / Delta, Bullish, Paradex). Sandbox choices shaped like
 * the venues' products (not their actual
 * lists): BTC and ETH options everywhere; Derive / Bullish / Paradex options USDC-priced per coin, Thalex USD, Delta
 * USD-quoted contracts of 0.001 BTC / 0.01 ETH expiring at 12:00 UTC; perps per venue with the venues' names and
 * contract sizes. Only Paradex publishes liquidations (as LIQUIDATION trades); the others have no public feed.
 */
export type SmallerVenue = 'derive' | 'thalex' | 'delta_india' | 'delta' | 'bullish' | 'paradex';

const DAILY: CalendarPolicy = { dailies: 2, weeklies: 2, monthlies: 2, quarterlies: 1 };
const DELTA: CalendarPolicy = { dailies: 3, weeklies: 2, monthlies: 2, quarterlies: 0 };
const WEEKLY: CalendarPolicy = { dailies: 0, weeklies: 3, monthlies: 2, quarterlies: 1 };
const cp = (t: OptionType): string => (t === 'call' ? 'C' : 'P');

interface SeriesOptions {
  readonly name: (expiry: number, strike: number, type: OptionType) => string;
  readonly family: string;
  readonly contractSize?: number;
  readonly lot: number;
  readonly tick: number;
  readonly currency: string;
  readonly calendar: CalendarPolicy;
  readonly expiryHourUtc?: number;
}

function series(symbol: MarketSymbol, o: SeriesOptions): OptionSeriesSpec {
  return {
    symbol,
    family: o.family,
    name: o.name,
    contractSize: o.contractSize ?? 1,
    lot: o.lot,
    inverse: false,
    priceCurrency: o.currency,
    priceTick: o.tick,
    settlementCurrency: o.currency,
    quoteCurrency: o.currency,
    calendar: o.calendar,
    strikesEachSide: 6,
    ...(o.expiryHourUtc !== undefined ? { expiryHourUtc: o.expiryHourUtc } : {}),
  };
}

function perp(symbol: MarketSymbol, instrument: string, contractSize: number, lot: number, ccy: string): LinearSpec {
  return { symbol, instrument, contractSize, inverse: false, lot, settlementCurrency: ccy, quoteCurrency: ccy };
}

/** Derive: `BTC-20261225-100000-C` (fractional strikes `2400_5`), USDC, sizes in coins. */
const derive = (symbol: MarketSymbol, base: string, lot: number, tick: number): OptionSeriesSpec =>
  series(symbol, {
    family: base,
    name: (e, k, t) => `${base}-${yyyymmdd(e)}-${String(k).replace('.', '_')}-${cp(t)}`,
    lot,
    tick,
    currency: 'USDC',
    calendar: DAILY,
  });

/** Thalex: Deribit-style `BTC-25OCT24-60000-C`, USD, sizes in coins. */
const thalex = (symbol: MarketSymbol, base: string, lot: number, tick: number): OptionSeriesSpec =>
  series(symbol, {
    family: `${base}USD`,
    name: (e, k, t) => `${base}-${dmmmyy(e)}-${k}-${cp(t)}`,
    lot,
    tick,
    currency: 'USD',
    calendar: WEEKLY,
  });

/** Delta: `C-BTC-90000-310125`, contracts of `contract_value` coins, 12:00 UTC settlement. */
const delta = (symbol: MarketSymbol, base: string, contractValue: number): OptionSeriesSpec =>
  series(symbol, {
    family: base,
    name: (e, k, t) => `${cp(t)}-${base}-${k}-${ddmmyy(e)}`,
    contractSize: contractValue,
    lot: 1,
    tick: 0.1,
    currency: 'USD',
    calendar: DELTA,
    expiryHourUtc: 12,
  });

/** Bullish: `BTC-USDC-20260130-160000-P`, contract multiplier 1. */
const bullish = (symbol: MarketSymbol, base: string, lot: number, tick: number): OptionSeriesSpec =>
  series(symbol, {
    family: base,
    name: (e, k, t) => `${base}-USDC-${yyyymmdd(e)}-${k}-${cp(t)}`,
    lot,
    tick,
    currency: 'USDC',
    calendar: WEEKLY,
  });

/** Paradex dated options: `BTC-USD-8MAY26-78000-C`, USD quoted, USDC settled, base-unit sizes. */
const paradex = (symbol: MarketSymbol, base: string, lot: number, tick: number): OptionSeriesSpec =>
  series(symbol, {
    family: base,
    name: (e, k, t) => `${base}-USD-${dmmmyy(e)}-${k}-${cp(t)}`,
    lot,
    tick,
    currency: 'USD',
    calendar: DAILY,
  });

const deltaPerps = (ccy: string): LinearSpec[] => [
  perp('BTCUSDT', 'BTCUSD', 0.001, 1, ccy),
  perp('ETHUSDT', 'ETHUSD', 0.01, 1, ccy),
  perp('SOLUSDT', 'SOLUSD', 1, 1, ccy),
];

export const SMALLER_VENUE_SPECS: Readonly<Record<SmallerVenue, VenueSpec>> = {
  derive: {
    venue: 'derive',
    share: 0.12,
    liquidations: 'none',
    indexName: (base) => base,
    options: [derive('BTCUSDT', 'BTC', 0.01, 5), derive('ETHUSDT', 'ETH', 0.1, 0.5)],
    perps: [
      perp('BTCUSDT', 'BTC-PERP', 1, 0.001, 'USDC'),
      perp('ETHUSDT', 'ETH-PERP', 1, 0.01, 'USDC'),
      perp('SOLUSDT', 'SOL-PERP', 1, 0.1, 'USDC'),
      perp('HYPEUSDT', 'HYPE-PERP', 1, 0.1, 'USDC'),
    ],
    spots: [],
  },
  thalex: {
    venue: 'thalex',
    share: 0.06,
    liquidations: 'none',
    indexName: (base) => `${base}USD`,
    options: [thalex('BTCUSDT', 'BTC', 0.01, 5), thalex('ETHUSDT', 'ETH', 0.1, 0.5)],
    perps: [perp('BTCUSDT', 'BTC-PERPETUAL', 1, 0.0001, 'USD'), perp('ETHUSDT', 'ETH-PERPETUAL', 1, 0.001, 'USD')],
    spots: [],
  },
  delta_india: {
    venue: 'delta_india',
    share: 0.15,
    liquidations: 'none',
    options: [delta('BTCUSDT', 'BTC', 0.001), delta('ETHUSDT', 'ETH', 0.01)],
    perps: deltaPerps('USD'),
    spots: [],
  },
  delta: {
    venue: 'delta',
    share: 0.05,
    liquidations: 'none',
    options: [delta('BTCUSDT', 'BTC', 0.001), delta('ETHUSDT', 'ETH', 0.01)],
    perps: deltaPerps('USD'),
    spots: [],
  },
  bullish: {
    venue: 'bullish',
    share: 0.06,
    liquidations: 'none',
    indexName: (base) => base,
    options: [bullish('BTCUSDT', 'BTC', 0.01, 5), bullish('ETHUSDT', 'ETH', 0.1, 0.5)],
    perps: [
      perp('BTCUSDT', 'BTC-USDC-PERP', 1, 0.0001, 'USDC'),
      perp('ETHUSDT', 'ETH-USDC-PERP', 1, 0.001, 'USDC'),
      perp('SOLUSDT', 'SOL-USDC-PERP', 1, 0.01, 'USDC'),
    ],
    spots: [],
  },
  paradex: {
    venue: 'paradex',
    share: 0.1,
    liquidations: 'as_trade',
    options: [paradex('BTCUSDT', 'BTC', 0.001, 5), paradex('ETHUSDT', 'ETH', 0.01, 0.5)],
    perps: [
      perp('BTCUSDT', 'BTC-USD-PERP', 1, 0.00001, 'USDC'),
      perp('ETHUSDT', 'ETH-USD-PERP', 1, 0.0001, 'USDC'),
      perp('SOLUSDT', 'SOL-USD-PERP', 1, 0.01, 'USDC'),
      perp('HYPEUSDT', 'HYPE-USD-PERP', 1, 0.1, 'USDC'),
    ],
    spots: [],
  },
};
