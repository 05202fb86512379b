import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeMarketEvent, decodeMarketEvent, marketEventTypeOfTopic } from './event-codec.ts';
import { eventKey, type MarketEvent } from './events.ts';

const base = { venue: 'bybit', symbol: 'BTCUSDT', ts: 1_680_652_922_081, receivedAt: 1_680_652_922_102 } as const;

const samples: readonly MarketEvent[] = [
  {
    type: 'instrument',
    event: {
      ...base,
      id: 'i1',
      instrument: 'BTC-28APR23-29500-C',
      kind: 'option',
      strike: 29500,
      expiry: 1_682_668_800_000,
      optionType: 'call',
      contractSize: 1,
      settlementCurrency: 'USDC',
      quoteCurrency: 'USDC',
      active: true,
    },
  },
  {
    type: 'instrument',
    event: {
      ...base,
      id: 'i2',
      instrument: 'BTCUSDT',
      kind: 'perp',
      strike: null,
      expiry: null,
      optionType: null,
      contractSize: 1,
      settlementCurrency: 'USDT',
      quoteCurrency: 'USDT',
      active: true,
    },
  },
  {
    type: 'option_ticker',
    event: {
      ...base,
      id: 't1',
      instrument: 'BTC-28APR23-29500-C',
      strike: 29500,
      expiry: 1_682_668_800_000,
      optionType: 'call',
      markPrice: 985,
      markIv: 0.51,
      bidIv: null,
      askIv: 0.55,
      delta: 0.41,
      gamma: 0.00007,
      vega: 30.1,
      theta: -40.2,
      openInterest: 12.5,
      underlyingPrice: 28200,
      indexPrice: 28150,
      priceCurrency: 'USDC',
      bidPrice: 980,
      askPrice: 990,
      bidPriceUsd: 980,
      askPriceUsd: 990,
      bidSize: 1.2,
      askSize: 0.5,
      lastPrice: null,
      lastPriceUsd: null,
      volume24h: 33.1,
    },
  },
  {
    type: 'perp_trade',
    event: { ...base, id: 'p1', market: 'perp', instrument: 'BTCUSDT', price: 28201.5, size: 0.25, side: 'sell', tradeId: 'p1' },
  },
  {
    type: 'spot_trade',
    event: { ...base, id: 's1', market: 'spot', instrument: 'BTCUSDT', price: 28199, size: 1.5, side: 'buy', tradeId: 's1' },
  },
  {
    type: 'perp_stats',
    event: {
      ...base,
      id: 'st1',
      instrument: 'BTCUSDT',
      openInterest: 50_000,
      openInterestUsd: 1.41e9,
      fundingRate: 0.0001,
      nextFundingTime: 1_680_681_600_000,
      markPrice: 28201,
      indexPrice: 28190,
    },
  },
  { type: 'liquidation', event: { ...base, id: 'l1', instrument: 'BTCUSDT', side: 'long', price: 28000, size: 3 } },
  { type: 'index', event: { ...base, venue: 'deribit', id: 'x1', kind: 'vol_index', name: 'btc_usd', value: 54.3 } },
];

test('every event family goes to its topic and comes back identical', () => {
  for (const e of samples) {
    const { topic, message } = encodeMarketEvent(e);
    assert.equal(marketEventTypeOfTopic(topic), e.type === 'spot_trade' ? 'spot_trade' : e.type);
    assert.equal(message.key, `${e.event.venue}:${e.event.symbol}`);
    const back = decodeMarketEvent(topic, message.value);
    assert.equal(back.type, e.type);
    assert.deepEqual({ ...back.event }, e.event);
  }
});

test('perp and spot trades share one Avro record but keep separate topics', () => {
  const perp = encodeMarketEvent(samples[3] as MarketEvent);
  const spot = encodeMarketEvent(samples[4] as MarketEvent);
  assert.equal(perp.topic, 'md.perp_trades.v1');
  assert.equal(spot.topic, 'md.spot_trades.v1');
  assert.deepEqual(perp.message.value.subarray(0, 10), spot.message.value.subarray(0, 10));
});

test('decoding a message of the wrong family is refused', () => {
  const { message } = encodeMarketEvent(samples[3] as MarketEvent);
  assert.throws(() => decodeMarketEvent('md.liquidations.v1', message.value), /expected liquidation/);
});

test('eventKey is venue:symbol, for kept pairs and beyond the bound of kept venues and symbols alike', () => {
  assert.equal(eventKey({ venue: 'okx', symbol: 'BTCUSDT' }), 'okx:BTCUSDT');
  assert.equal(eventKey({ venue: 'okx', symbol: 'BTCUSDT' }), 'okx:BTCUSDT');
  for (let i = 0; i < 600; i++) {
    assert.equal(eventKey({ venue: `v${i}`, symbol: 'ETHUSDT' }), `v${i}:ETHUSDT`);
    assert.equal(eventKey({ venue: 'okx', symbol: `S${i}` }), `okx:S${i}`);
  }
  assert.equal(eventKey({ venue: 'okx', symbol: 'BTCUSDT' }), 'okx:BTCUSDT');
});
