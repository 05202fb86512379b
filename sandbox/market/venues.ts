import type { MarketSymbol, OptionType } from '#schemas/events.ts';
import { dmmmyy, yymmdd, type CalendarPolicy } from './calendar.ts';
import { SMALLER_VENUE_SPECS } from './smaller-venues.ts';

export { SANDBOX_VENUES } from './venue-spec.ts';
export type { LinearSpec, LiquidationFeed, OptionSeriesSpec, SandboxVenue, VenueSpec } from './venue-spec.ts';
import type { LinearSpec, OptionSeriesSpec, SandboxVenue, VenueSpec } from './venue-spec.ts';

const BIG: CalendarPolicy = { dailies: 3, weeklies: 3, monthlies: 3, quarterlies: 2 };
const SMALL: CalendarPolicy = { dailies: 2, weeklies: 2, monthlies: 2, quarterlies: 0 };
const cp = (t: OptionType): string => (t === 'call' ? 'C' : 'P');
/** Deribit writes decimal strikes with 'd' (1d02 = 1.02). */
const deribitStrike = (k: number): string => String(k).replace('.', 'd');

function deribitOption(
  symbol: MarketSymbol,
  base: string,
  linear: boolean,
  lot: number,
  tick: number,
  cal: CalendarPolicy,
): OptionSeriesSpec {
  const prefix = linear ? `${base}_USDC` : base;
  return {
    symbol,
    family: linear ? 'USDC' : base,
    name: (e, k, t) => `${prefix}-${dmmmyy(e)}-${deribitStrike(k)}-${cp(t)}`,
    contractSize: 1,
    lot,
    inverse: !linear,
    priceCurrency: linear ? 'USDC' : base,
    priceTick: tick,
    settlementCurrency: linear ? 'USDC' : base,
    quoteCurrency: linear ? 'USDC' : base,
    calendar: cal,
    strikesEachSide: cal === BIG ? 8 : 6,
  };
}

function bybitOption(symbol: MarketSymbol, base: string, lot: number, tick: number, cal: CalendarPolicy): OptionSeriesSpec {
  return {
    symbol,
    family: base,
    name: (e, k, t) => `${base}-${dmmmyy(e)}-${k}-${cp(t)}`,
    contractSize: 1,
    lot,
    inverse: false,
    priceCurrency: 'USDC',
    priceTick: tick,
    settlementCurrency: 'USDC',
    quoteCurrency: 'USDC',
    calendar: cal,
    strikesEachSide: cal === BIG ? 8 : 6,
  };
}

function okxOption(symbol: MarketSymbol, base: string, ctMult: number, cal: CalendarPolicy): OptionSeriesSpec {
  return {
    symbol,
    family: `${base}-USD`,
    name: (e, k, t) => `${base}-USD-${yymmdd(e)}-${k}-${cp(t)}`,
    contractSize: ctMult,
    lot: 1,
    inverse: true,
    priceCurrency: base,
    priceTick: 0.0001,
    settlementCurrency: base,
    quoteCurrency: base,
    calendar: cal,
    strikesEachSide: cal === BIG ? 8 : 6,
  };
}

function binanceOption(symbol: MarketSymbol, base: string, lot: number, tick: number, cal: CalendarPolicy): OptionSeriesSpec {
  return {
    symbol,
    family: `${base}USDT`,
    name: (e, k, t) => `${base}-${yymmdd(e)}-${k}-${cp(t)}`,
    contractSize: 1,
    lot,
    inverse: false,
    priceCurrency: 'USDT',
    priceTick: tick,
    settlementCurrency: 'USDT',
    quoteCurrency: 'USDT',
    calendar: cal,
    strikesEachSide: cal === BIG ? 8 : 6,
  };
}

function lin(symbol: MarketSymbol, instrument: string, contractSize: number, lot: number, settle = 'USDT'): LinearSpec {
  return { symbol, instrument, contractSize, inverse: false, lot, settlementCurrency: settle, quoteCurrency: 'USDT' };
}

/**
 * Default listings. Sandbox choices, not an exchange's actual product list: HYPE options are listed on Bybit so the
 * fourth symbol has an option market; OKX lists BTC-USD and ETH-USD coin-margined options. The five smaller venues
 * (Derive, Thalex, Delta India / Delta, Bullish, Paradex) are listed in smaller-venues.ts.
 */
export const VENUE_SPECS: Readonly<Record<SandboxVenue, VenueSpec>> = {
  deribit: {
    venue: 'deribit',
    share: 1,
    liquidations: 'as_trade',
    options: [
      deribitOption('BTCUSDT', 'BTC', false, 0.1, 0.0001, BIG),
      deribitOption('ETHUSDT', 'ETH', false, 1, 0.0001, BIG),
      deribitOption('SOLUSDT', 'SOL', true, 1, 0.01, SMALL),
    ],
    perps: [
      {
        symbol: 'BTCUSDT',
        instrument: 'BTC-PERPETUAL',
        contractSize: 10,
        inverse: true,
        lot: 1,
        settlementCurrency: 'BTC',
        quoteCurrency: 'USD',
      },
      {
        symbol: 'ETHUSDT',
        instrument: 'ETH-PERPETUAL',
        contractSize: 1,
        inverse: true,
        lot: 1,
        settlementCurrency: 'ETH',
        quoteCurrency: 'USD',
      },
      { ...lin('SOLUSDT', 'SOL_USDC-PERPETUAL', 1, 0.1, 'USDC'), quoteCurrency: 'USDC' },
    ],
    spots: [],
  },
  bybit: {
    venue: 'bybit',
    liquidations: 'separate',
    share: 0.35,
    options: [
      bybitOption('BTCUSDT', 'BTC', 0.01, 5, BIG),
      bybitOption('ETHUSDT', 'ETH', 0.1, 0.1, BIG),
      bybitOption('SOLUSDT', 'SOL', 1, 0.01, SMALL),
      bybitOption('HYPEUSDT', 'HYPE', 1, 0.001, SMALL),
    ],
    perps: [
      lin('BTCUSDT', 'BTCUSDT', 1, 0.001),
      lin('ETHUSDT', 'ETHUSDT', 1, 0.01),
      lin('SOLUSDT', 'SOLUSDT', 1, 0.1),
      lin('HYPEUSDT', 'HYPEUSDT', 1, 0.01),
    ],
    spots: [
      lin('BTCUSDT', 'BTCUSDT', 1, 0.00001),
      lin('ETHUSDT', 'ETHUSDT', 1, 0.0001),
      lin('SOLUSDT', 'SOLUSDT', 1, 0.001),
      lin('HYPEUSDT', 'HYPEUSDT', 1, 0.01),
    ],
  },
  okx: {
    venue: 'okx',
    liquidations: 'separate',
    share: 0.3,
    options: [okxOption('BTCUSDT', 'BTC', 0.01, BIG), okxOption('ETHUSDT', 'ETH', 0.1, BIG)],
    perps: [
      lin('BTCUSDT', 'BTC-USDT-SWAP', 0.01, 1),
      lin('ETHUSDT', 'ETH-USDT-SWAP', 0.1, 1),
      lin('SOLUSDT', 'SOL-USDT-SWAP', 1, 1),
      lin('HYPEUSDT', 'HYPE-USDT-SWAP', 0.1, 1),
    ],
    spots: [
      lin('BTCUSDT', 'BTC-USDT', 1, 0.00001),
      lin('ETHUSDT', 'ETH-USDT', 1, 0.0001),
      lin('SOLUSDT', 'SOL-USDT', 1, 0.001),
      lin('HYPEUSDT', 'HYPE-USDT', 1, 0.01),
    ],
  },
  binance: {
    venue: 'binance',
    liquidations: 'separate',
    share: 0.3,
    options: [
      binanceOption('BTCUSDT', 'BTC', 0.01, 5, BIG),
      binanceOption('ETHUSDT', 'ETH', 0.01, 0.1, BIG),
      binanceOption('SOLUSDT', 'SOL', 0.1, 0.01, SMALL),
    ],
    perps: [
      lin('BTCUSDT', 'BTCUSDT', 1, 0.001),
      lin('ETHUSDT', 'ETHUSDT', 1, 0.001),
      lin('SOLUSDT', 'SOLUSDT', 1, 0.01),
      lin('HYPEUSDT', 'HYPEUSDT', 1, 0.01),
    ],
    spots: [
      lin('BTCUSDT', 'BTCUSDT', 1, 0.00001),
      lin('ETHUSDT', 'ETHUSDT', 1, 0.0001),
      lin('SOLUSDT', 'SOLUSDT', 1, 0.001),
      lin('HYPEUSDT', 'HYPEUSDT', 1, 0.01),
    ],
  },
  ...SMALLER_VENUE_SPECS,
};
