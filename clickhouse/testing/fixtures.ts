import type {
  DeadLetter,
  IndexPrice,
  Instrument,
  LinearTrade,
  Liquidation,
  OptionTicker,
  OptionTrade,
  PerpStats,
} from '#schemas/events.ts';

/**
 * Hand-built events of every family, with awkward values (fractions, tiny/huge floats, nulls, quotes).
 * Times are today (UTC) so no table TTL drops them on insert (option_tickers keep 90 days).
 */
const DAY = 86_400_000;
export const TODAY = Math.floor(Date.now() / DAY) * DAY;
export const TS = TODAY + 8 * 3_600_000 + 1_234;
export const EXPIRY = TODAY + 30 * DAY + 8 * 3_600_000;

export function optionTrade(i = 0): OptionTrade {
  return {
    venue: 'deribit',
    symbol: 'BTCUSDT',
    ts: TS + i,
    receivedAt: TS + i + 17,
    id: `deribit:BTC-27MAR26-85000-C:${1000 + i}`,
    instrument: 'BTC-27MAR26-85000-C',
    strike: 85000,
    expiry: EXPIRY,
    optionType: 'call',
    price: 0.0123,
    priceCurrency: 'BTC',
    priceUsd: 1044.2345678901,
    size: 0.1 + i,
    premiumUsd: 104.42345678901,
    side: 'buy',
    iv: 0.5512,
    indexPrice: 84895.12,
    underlyingPrice: null,
    tradeId: String(1000 + i),
    block: i % 2 === 1,
  };
}

export const instrumentOption: Instrument = {
  venue: 'okx',
  symbol: 'ETHUSDT',
  ts: TS,
  receivedAt: TS + 3,
  id: 'okx:ETH-USD-260327-3000-P',
  instrument: 'ETH-USD-260327-3000-P',
  kind: 'option',
  strike: 3000,
  expiry: EXPIRY,
  optionType: 'put',
  contractSize: 0.1,
  settlementCurrency: 'ETH',
  quoteCurrency: 'USD',
  active: true,
};

export const instrumentPerp: Instrument = {
  venue: 'binance',
  symbol: 'SOLUSDT',
  ts: TS + 1,
  receivedAt: TS + 4,
  id: 'binance:SOLUSDT',
  instrument: 'SOLUSDT',
  kind: 'perp',
  strike: null,
  expiry: null,
  optionType: null,
  contractSize: 1,
  settlementCurrency: 'USDT',
  quoteCurrency: 'USDT',
  active: false,
};

export const optionTicker: OptionTicker = {
  venue: 'bybit',
  symbol: 'SOLUSDT',
  ts: TS + 5,
  receivedAt: TS + 9,
  id: 'bybit:SOL-27MAR26-150-C:1774598401239',
  instrument: 'SOL-27MAR26-150-C',
  strike: 150,
  expiry: EXPIRY,
  optionType: 'call',
  markPrice: 3.25,
  markIv: 0.7431,
  bidIv: null,
  askIv: 0.81,
  delta: 0.4123456789,
  gamma: 1.234e-12,
  vega: 0.1,
  theta: -0.0731,
  openInterest: 12345.678,
  underlyingPrice: 149.87,
  indexPrice: null,
};

export const perpTrade: LinearTrade = {
  venue: 'binance',
  symbol: 'BTCUSDT',
  ts: TS + 7,
  receivedAt: TS + 8,
  id: 'binance:BTCUSDT:987654321',
  market: 'perp',
  instrument: 'BTCUSDT',
  price: 84901.1,
  size: 0.003,
  side: 'sell',
  tradeId: '987654321',
};

export const spotTrade: LinearTrade = { ...perpTrade, market: 'spot', id: 'binance:spot:BTCUSDT:55', tradeId: '55', side: 'buy' };

export const perpStats: PerpStats = {
  venue: 'bybit',
  symbol: 'HYPEUSDT',
  ts: TS + 11,
  receivedAt: TS + 12,
  id: 'bybit:HYPEUSDT:stats:1774598401245',
  instrument: 'HYPEUSDT',
  openInterest: 1234567.5,
  openInterestUsd: null,
  fundingRate: -0.000125,
  nextFundingTime: TODAY + 16 * 3_600_000,
  markPrice: 21.234,
  indexPrice: 21.2301,
};

export const liquidation: Liquidation = {
  venue: 'okx',
  symbol: 'ETHUSDT',
  ts: TS + 13,
  receivedAt: TS + 14,
  id: 'okx:liq:ETH-USDT-SWAP:1774598401247',
  instrument: 'ETH-USDT-SWAP',
  side: 'long',
  price: 2999.5,
  size: 12.5,
};

export const indexPrice: IndexPrice = {
  venue: 'deribit',
  symbol: 'BTCUSDT',
  ts: TS + 15,
  receivedAt: TS + 16,
  id: 'deribit:btc_usd:1774598401249',
  kind: 'vol_index',
  name: 'btcdvol_usdc',
  value: 52.87,
};

export const deadLetter: DeadLetter = {
  venue: 'thalex',
  channel: 'ticker.BTC',
  reason: `unexpected field "x"; value 'y'`,
  raw: '{"jsonrpc":"2.0","params":{"x":"\\u0000 ; DROP TABLE t; --"}}\n',
  encoding: 'utf8',
  receivedAt: TS + 20,
  id: 'dl:thalex:abc',
};
