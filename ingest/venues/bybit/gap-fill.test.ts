/**
 * Bybit gap-fill parser on the documented /v5/market/recent-trade answer ("Get Public Recent Trading History"
 * example) and the request selection per connection that was down.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ctxFor, RECEIVED_AT } from '../testing/run-parser.ts';
import { bybitGapFill, parseRecentTradeRest } from './gap-fill.ts';
import { bybitInstrumentFromName } from './instruments.ts';
import type { Instrument } from '#schemas/events.ts';

const BODY = JSON.stringify({
  retCode: 0,
  retMsg: 'OK',
  result: {
    category: 'spot',
    list: [
      {
        execId: '2100000000007764263',
        symbol: 'BTCUSDT',
        price: '16618.49',
        size: '0.00012',
        side: 'Buy',
        time: '1672052955758',
        isBlockTrade: false,
      },
    ],
  },
  retExtInfo: {},
  time: 1672053054358,
});

test('recent-trade rows -> perp trades on a linear request, spot trades on a spot request', () => {
  const event = {
    venue: 'bybit',
    symbol: 'BTCUSDT',
    ts: 1672052955758,
    receivedAt: RECEIVED_AT,
    id: 'bybit:BTCUSDT:2100000000007764263',
    instrument: 'BTCUSDT',
    tradeId: '2100000000007764263',
    side: 'buy',
    price: 16618.49,
    size: 0.00012,
  };
  const perp = parseRecentTradeRest(BODY, ctxFor('bybit', 'rest'));
  assert.ok(perp.ok);
  assert.deepEqual(perp.events, [{ type: 'perp_trade', event: { ...event, market: 'perp' } }]);
  const spot = parseRecentTradeRest(BODY, ctxFor('bybit', 'rest'), 'spot');
  assert.ok(spot.ok);
  assert.deepEqual(spot.events, [{ type: 'spot_trade', event: { ...event, market: 'spot' } }]);
  const err = parseRecentTradeRest('{"retCode":10001,"retMsg":"params error","result":{}}', ctxFor('bybit', 'rest'));
  assert.ok(!err.ok && /retCode 10001 params error/.test(err.reason));
});

test('requests follow the connections that were down: option coins, linear contracts, USDT spot pairs (≤ 60 rows)', () => {
  const spec = bybitGapFill('R');
  const perp = bybitInstrumentFromName('BTCUSDT', 0);
  assert.ok(perp !== null);
  const instruments: Instrument[] = [
    perp,
    { ...perp, kind: 'spot', quoteCurrency: 'USDT' },
    { ...perp, kind: 'spot', instrument: 'BTCUSDC', quoteCurrency: 'USDC' },
  ];
  const urls = (connections: string[]): string[] =>
    spec.requests(['BTCUSDT'], 0, 1, { connections: new Set(connections), instruments }).map((r) => r.url);
  assert.deepEqual(urls(['option-1']), ['R/v5/market/recent-trade?category=option&baseCoin=BTC&limit=1000']);
  assert.deepEqual(urls(['linear']), ['R/v5/market/recent-trade?category=linear&symbol=BTCUSDT&limit=1000']);
  assert.deepEqual(urls(['spot']), ['R/v5/market/recent-trade?category=spot&symbol=BTCUSDT&limit=60']);
  assert.equal(urls(['option-0', 'linear', 'spot']).length, 3);
});
