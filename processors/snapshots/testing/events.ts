/** Small event builders for the snapshot tests (times near today so raw-table TTLs keep the rows). */
import type {
  IndexPrice,
  Instrument,
  MarketSymbol,
  OptionTicker,
  OptionTrade,
  OptionType,
  PerpStats,
  TakerSide,
  Venue,
} from '#schemas/events.ts';

export const DAY = 86_400_000;
/** Today 00:00 UTC. */
export const TODAY = Math.floor(Date.now() / DAY) * DAY;

export interface TickerSpec {
  readonly venue: Venue;
  readonly instrument: string;
  readonly strike: number;
  readonly expiry: number;
  readonly type: OptionType;
  readonly oi: number | null;
  readonly iv: number | null;
  readonly forward: number | null;
  readonly ts: number;
  readonly symbol?: MarketSymbol;
  readonly indexPrice?: number | null;
}

export function ticker(s: TickerSpec): OptionTicker {
  return {
    venue: s.venue,
    symbol: s.symbol ?? 'BTCUSDT',
    ts: s.ts,
    receivedAt: s.ts + 5,
    id: `${s.venue}:${s.instrument}:${s.ts}`,
    instrument: s.instrument,
    strike: s.strike,
    expiry: s.expiry,
    optionType: s.type,
    markPrice: null,
    markIv: s.iv,
    bidIv: null,
    askIv: null,
    delta: null,
    gamma: null,
    vega: null,
    theta: null,
    openInterest: s.oi,
    underlyingPrice: s.forward,
    indexPrice: s.indexPrice ?? null,
  };
}

export function trade(s: {
  venue: Venue;
  instrument: string;
  strike: number;
  expiry: number;
  type: OptionType;
  side: TakerSide;
  size: number;
  ts: number;
  id: string;
  symbol?: MarketSymbol;
}): OptionTrade {
  return {
    venue: s.venue,
    symbol: s.symbol ?? 'BTCUSDT',
    ts: s.ts,
    receivedAt: s.ts + 3,
    id: s.id,
    instrument: s.instrument,
    strike: s.strike,
    expiry: s.expiry,
    optionType: s.type,
    price: 0.01,
    priceCurrency: 'BTC',
    priceUsd: 1000,
    size: s.size,
    premiumUsd: 1000 * s.size,
    side: s.side,
    iv: null,
    indexPrice: null,
    underlyingPrice: null,
    tradeId: s.id,
    block: false,
  };
}

export function indexPrice(venue: Venue, value: number, ts: number, symbol: MarketSymbol = 'BTCUSDT'): IndexPrice {
  return { venue, symbol, ts, receivedAt: ts + 1, id: `${venue}:idx:${symbol}:${ts}`, kind: 'index', name: `${symbol}_index`, value };
}

export function perpStats(venue: Venue, mark: number, ts: number, symbol: MarketSymbol = 'BTCUSDT'): PerpStats {
  return {
    venue,
    symbol,
    ts,
    receivedAt: ts + 1,
    id: `${venue}:perp:${symbol}:${ts}`,
    instrument: `${symbol}-PERP`,
    openInterest: null,
    openInterestUsd: null,
    fundingRate: null,
    nextFundingTime: null,
    markPrice: mark,
    indexPrice: null,
  };
}

export function optionInstrument(
  venue: Venue,
  instrument: string,
  ts: number,
  active: boolean,
  symbol: MarketSymbol = 'BTCUSDT',
): Instrument {
  return {
    venue,
    symbol,
    ts,
    receivedAt: ts + 1,
    id: `${venue}:${instrument}:${ts}`,
    instrument,
    kind: 'option',
    strike: 100_000,
    expiry: TODAY + 30 * DAY,
    optionType: 'call',
    contractSize: 1,
    settlementCurrency: 'BTC',
    quoteCurrency: 'USD',
    active,
  };
}
