import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OptionTrade } from '#schemas/events.ts';
import { tapeRow } from './tape-row.ts';

// A Deribit BTC call bought at 0.0125 BTC with the index at 100,000 USD: price_usd = 0.0125 × 100,000 = 1,250;
// 2.5 coins → premium 1,250 × 2.5 = 3,125 USD. Times: trade 1774512000123 ms = 2026-03-26T08:00:00.123Z,
// expiry 1774598400000 ms = 2026-03-27T08:00:00Z (86,400,000 ms later minus the 123 ms).
const trade: OptionTrade = {
  venue: 'deribit',
  symbol: 'BTCUSDT',
  ts: 1_774_512_000_123,
  receivedAt: 1_774_512_000_150,
  id: 'deribit:ot:42',
  instrument: 'BTC-27MAR26-110000-C',
  strike: 110_000,
  expiry: 1_774_598_400_000,
  optionType: 'call',
  price: 0.0125,
  priceCurrency: 'BTC',
  priceUsd: 1_250,
  size: 2.5,
  premiumUsd: 3_125,
  side: 'buy',
  iv: 0.52,
  indexPrice: 100_000,
  underlyingPrice: 100_120,
  tradeId: '42',
  block: true,
};

test('tapeRow maps every contract field of an option trade', () => {
  assert.deepEqual(tapeRow(trade), {
    time: '2026-03-26T08:00:00.123Z',
    venue: 'deribit',
    symbol: 'BTCUSDT',
    instrument: 'BTC-27MAR26-110000-C',
    expiry: '2026-03-27T08:00:00.000Z',
    strike: 110_000,
    type: 'call',
    side: 'buy',
    size: 2.5,
    price: 0.0125,
    price_currency: 'BTC',
    price_usd: 1_250,
    premium_usd: 3_125,
    iv: 0.52,
    index_price: 100_000,
    block: true,
    trade_id: '42',
  });
});

test('tapeRow: IV and index price the venue did not publish are null', () => {
  const row = tapeRow({
    ...trade,
    iv: null,
    indexPrice: null,
    optionType: 'put',
    side: 'sell',
    block: false,
    priceCurrency: 'USDT',
    price: 1_250,
  });
  assert.equal(row.iv, null);
  assert.equal(row.index_price, null);
  assert.equal(row.type, 'put');
  assert.equal(row.side, 'sell');
  assert.equal(row.block, false);
  assert.equal(row.price, 1_250);
  assert.equal(row.price_currency, 'USDT');
});
