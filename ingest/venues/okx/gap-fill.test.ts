/**
 * OKX gap-fill parser on the documented /api/v5/market/trades answer ("Get trades" example) and the requests of an
 * outage of the one public connection (option families, then each listed swap and spot pair).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ctxFor, RECEIVED_AT } from '../testing/run-parser.ts';
import { okxGapFill, parseMarketTradesRest } from './gap-fill.ts';
import { okxInstrumentFromName } from './instruments.ts';
import type { Instrument } from '#schemas/events.ts';

test('market trades rows -> spot trades; an error code fails the request', () => {
  const body = JSON.stringify({
    code: '0',
    msg: '',
    data: [{ instId: 'BTC-USDT', side: 'sell', sz: '0.00001', px: '29963.2', source: '0', tradeId: '242720720', ts: '1654161646974' }],
  });
  const r = parseMarketTradesRest(body, ctxFor('okx', 'rest'));
  assert.ok(r.ok);
  assert.deepEqual(r.events, [
    {
      type: 'spot_trade',
      event: {
        venue: 'okx',
        symbol: 'BTCUSDT',
        ts: 1654161646974,
        receivedAt: RECEIVED_AT,
        id: 'okx:BTC-USDT:242720720',
        instrument: 'BTC-USDT',
        tradeId: '242720720',
        side: 'sell',
        market: 'spot',
        price: 29963.2,
        size: 0.00001,
      },
    },
  ]);
  const err = parseMarketTradesRest('{"code":"51001","msg":"Instrument ID does not exist","data":[]}', ctxFor('okx', 'rest'));
  assert.ok(!err.ok && /code 51001/.test(err.reason));
});

test('requests: both option families of the symbol, then each active swap and spot pair', () => {
  const spot = okxInstrumentFromName('BTC-USDT', 0);
  assert.ok(spot !== null);
  const instruments: Instrument[] = [
    spot,
    { ...spot, kind: 'perp', instrument: 'BTC-USDT-SWAP' },
    { ...spot, instrument: 'BTC-USDC', active: false },
    { ...spot, symbol: 'ETHUSDT', instrument: 'ETH-USDT' },
  ];
  const urls = okxGapFill('R')
    .requests(['BTCUSDT'], 0, 1, { connections: new Set(['public']), instruments })
    .map((r) => r.url);
  assert.deepEqual(urls, [
    'R/api/v5/public/option-trades?instFamily=BTC-USD',
    'R/api/v5/public/option-trades?instFamily=BTC-USD_UM',
    'R/api/v5/market/trades?instId=BTC-USDT&limit=500',
    'R/api/v5/market/trades?instId=BTC-USDT-SWAP&limit=500',
  ]);
});
