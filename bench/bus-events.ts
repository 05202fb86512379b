import avro from 'avsc';

/** The bus bench's ~200-byte option-trade events (a pool reused round-robin), their Avro bytes and keys. */
export const tradeType = avro.Type.forSchema({
  type: 'record',
  name: 'BenchOptionTrade',
  fields: [
    { name: 'venue', type: 'string' },
    { name: 'symbol', type: 'string' },
    { name: 'ts', type: 'long' },
    { name: 'receivedAt', type: 'long' },
    { name: 'id', type: 'string' },
    { name: 'instrument', type: 'string' },
    { name: 'strike', type: 'double' },
    { name: 'expiry', type: 'long' },
    { name: 'optionType', type: 'string' },
    { name: 'price', type: 'double' },
    { name: 'priceCurrency', type: 'string' },
    { name: 'priceUsd', type: 'double' },
    { name: 'size', type: 'double' },
    { name: 'premiumUsd', type: 'double' },
    { name: 'side', type: 'string' },
    { name: 'iv', type: ['null', 'double'] },
    { name: 'indexPrice', type: ['null', 'double'] },
    { name: 'underlyingPrice', type: ['null', 'double'] },
    { name: 'tradeId', type: 'string' },
    { name: 'block', type: 'boolean' },
    { name: 'source', type: 'string' },
  ],
});

interface BenchTrade {
  readonly [field: string]: string | number | boolean | null;
}

function makeTrade(i: number): BenchTrade {
  const strike = 60_000 + (i % 40) * 1000;
  return {
    venue: 'deribit',
    symbol: 'BTCUSDT',
    ts: 1_750_000_000_000 + i,
    receivedAt: 1_750_000_000_005 + i,
    id: `deribit:trade:${100_000_000 + i}`,
    instrument: `BTC-27JUN25-${strike}-${i % 2 ? 'C' : 'P'}`,
    strike,
    expiry: 1_751_011_200_000,
    optionType: i % 2 ? 'call' : 'put',
    price: 0.0215 + (i % 100) * 1e-4,
    priceCurrency: 'BTC',
    priceUsd: 2150.5 + (i % 100),
    size: 0.1 * (1 + (i % 10)),
    premiumUsd: 215.05 * (1 + (i % 10)),
    side: i % 3 ? 'buy' : 'sell',
    iv: 0.55 + (i % 50) * 1e-3,
    indexPrice: 100_012.5,
    underlyingPrice: 100_105.25,
    tradeId: String(100_000_000 + i),
    block: false,
    source: `wss://www.deribit.com/ws/api/v2#${i % 7}`,
  };
}

export const POOL = 1000;
export const trades = Array.from({ length: POOL }, (_, i) => makeTrade(i));
export const encoded = trades.map((t) => tradeType.toBuffer(t));
export const keys = trades.map((t) => String(t.instrument));
