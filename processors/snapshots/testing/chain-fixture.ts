/**
 * The hand-built market of the snapshot tests: two venues, a 0DTE expiry (E1, 6 h after the tick) and a
 * weekly (E2), stale/expired/no-IV tickers that must be left out or counted, three index prices (one stale),
 * two perp marks, and deribit trades exercising clipping, expiry drop, a redelivered trade and a trade after
 * the tick. `expectedChain` is the ChainSnapshot those events must produce, written out by hand.
 */
import type { MarketEvent, OptionType, Venue } from '#schemas/events.ts';
import type { ChainInstrument, ChainSnapshot } from '../../analytics/types.ts';
import { DAY, TODAY, indexPrice, perpStats, ticker, trade } from './events.ts';

export const TICK = TODAY + 12 * 3600_000;
export const E1 = TICK + 6 * 3600_000;
export const E2 = TICK + 7 * DAY;
const EXPIRED = TICK - 3600_000;

interface Row {
  venue: Venue;
  name: string;
  strike: number;
  expiry: number;
  type: OptionType;
  oi: number;
  iv: number | null;
  fwd: number;
  ts?: number;
}

const FRESH = TICK - 10_000;
export const TICKERS: readonly Row[] = [
  { venue: 'deribit', name: 'BTC-E2-100000-C', strike: 100_000, expiry: E2, type: 'call', oi: 500, iv: 0.5, fwd: 100_200 },
  { venue: 'deribit', name: 'BTC-E2-100000-P', strike: 100_000, expiry: E2, type: 'put', oi: 400, iv: 0.52, fwd: 100_200 },
  { venue: 'deribit', name: 'BTC-E2-95000-P', strike: 95_000, expiry: E2, type: 'put', oi: 800, iv: 0.58, fwd: 100_200 },
  { venue: 'deribit', name: 'BTC-E2-105000-C', strike: 105_000, expiry: E2, type: 'call', oi: 600, iv: 0.48, fwd: 100_200 },
  { venue: 'deribit', name: 'BTC-E1-100000-C', strike: 100_000, expiry: E1, type: 'call', oi: 100, iv: 0.45, fwd: 100_050 },
  { venue: 'deribit', name: 'BTC-E1-100000-P', strike: 100_000, expiry: E1, type: 'put', oi: 120, iv: 0.45, fwd: 100_050 },
  { venue: 'deribit', name: 'BTC-EXP-100000-C', strike: 100_000, expiry: EXPIRED, type: 'call', oi: 999, iv: 0.5, fwd: 100_000 },
  { venue: 'okx', name: 'BTC-USD-E2-100000-C', strike: 100_000, expiry: E2, type: 'call', oi: 50, iv: 0.51, fwd: 100_180 },
  { venue: 'okx', name: 'BTC-USD-E2-95000-P', strike: 95_000, expiry: E2, type: 'put', oi: 70, iv: 0.57, fwd: 100_180 },
  { venue: 'okx', name: 'BTC-USD-E2-110000-C', strike: 110_000, expiry: E2, type: 'call', oi: 30, iv: null, fwd: 100_180 },
  // stale: 10 min before the tick (freshness 5 min)
  {
    venue: 'okx',
    name: 'BTC-USD-E2-90000-P',
    strike: 90_000,
    expiry: E2,
    type: 'put',
    oi: 1000,
    iv: 0.6,
    fwd: 100_180,
    ts: TICK - 600_000,
  },
];

export function marketEvents(): MarketEvent[] {
  const out: MarketEvent[] = TICKERS.map((r) => ({
    type: 'option_ticker',
    event: ticker({
      venue: r.venue,
      instrument: r.name,
      strike: r.strike,
      expiry: r.expiry,
      type: r.type,
      oi: r.oi,
      iv: r.iv,
      forward: r.fwd,
      ts: r.ts ?? FRESH,
    }),
  }));
  out.push(
    { type: 'index', event: indexPrice('deribit', 100_000, TICK - 5_000) },
    { type: 'index', event: indexPrice('okx', 100_100, TICK - 3_000) },
    { type: 'index', event: indexPrice('bybit', 99_000, TICK - 120_000) }, // stale (60 s window)
    { type: 'perp_stats', event: perpStats('deribit', 100_150, TICK - 2_000) },
    { type: 'perp_stats', event: perpStats('okx', 100_250, TICK - 4_000) },
  );
  return out;
}

const t = (
  venue: Venue,
  name: string,
  expiry: number,
  type: OptionType,
  side: 'buy' | 'sell',
  size: number,
  ts: number,
  id: string,
  strike = 100_000,
): MarketEvent => ({
  type: 'option_trade',
  event: trade({ venue, instrument: name, strike, expiry, type, side, size, ts, id }),
});

export function tradeEvents(): MarketEvent[] {
  return [
    t('deribit', 'BTC-E2-100000-C', E2, 'call', 'buy', 30, TICK - 3600_000, 'd1'),
    t('deribit', 'BTC-E2-100000-C', E2, 'call', 'sell', 10, TICK - 1800_000, 'd2'),
    t('deribit', 'BTC-E2-95000-P', E2, 'put', 'sell', 900, TICK - 7200_000, 'd3', 95_000),
    t('deribit', 'BTC-E1-100000-P', E1, 'put', 'buy', 5, TICK - 1200_000, 'd4'),
    t('deribit', 'BTC-E1-100000-P', E1, 'put', 'buy', 5, TICK - 1200_000, 'd4'), // redelivered
    t('deribit', 'BTC-E2-100000-C', E2, 'call', 'buy', 7, TICK + 1_000, 'd5'), // after the tick
    t('deribit', 'BTC-EXP-100000-C', EXPIRED, 'call', 'buy', 3, TICK - 7200_000, 'd6'), // expired at the tick
  ];
}

const inst = (
  venue: Venue,
  strike: number,
  expiry: number,
  type: OptionType,
  oi: number,
  iv: number | null,
  fwd: number,
  inv?: number,
): ChainInstrument => ({
  venue,
  strike,
  expiry,
  type,
  openInterest: oi,
  markIv: iv,
  forward: fwd,
  ...(inv !== undefined ? { dealerInventory: inv } : {}),
});

/** spot = median(100000, 100100) = 100050; perp = mean(100150, 100250) = 100200; inventories −20, +900, −5. */
export function expectedChain(): ChainSnapshot {
  return {
    symbol: 'BTCUSDT',
    now: TICK,
    spot: 100_050,
    perpPrice: 100_200,
    instruments: [
      inst('deribit', 100_000, E2, 'call', 500, 0.5, 100_200, -20),
      inst('deribit', 100_000, E2, 'put', 400, 0.52, 100_200),
      inst('deribit', 95_000, E2, 'put', 800, 0.58, 100_200, 900),
      inst('deribit', 105_000, E2, 'call', 600, 0.48, 100_200),
      inst('deribit', 100_000, E1, 'call', 100, 0.45, 100_050),
      inst('deribit', 100_000, E1, 'put', 120, 0.45, 100_050, -5),
      inst('okx', 100_000, E2, 'call', 50, 0.51, 100_180),
      inst('okx', 95_000, E2, 'put', 70, 0.57, 100_180),
      inst('okx', 110_000, E2, 'call', 30, null, 100_180),
    ],
  };
}
