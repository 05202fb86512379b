import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureText } from '../fixtures/load.ts';
import { RECEIVED_AT } from '../testing/run-parser.ts';
import type { Instrument } from '#schemas/events.ts';
import { bybitConnector, createBybitConnector } from './index.ts';
import { parseBybitInstruments } from './instruments.ts';

function listing(file: string, url = 'https://api.bybit.com/x?category=option'): { list: Instrument[]; next: string | null } {
  const r = parseBybitInstruments(fixtureText(file), url, RECEIVED_AT);
  assert.ok(r.ok, JSON.stringify(r));
  return { list: r.events.flatMap((e) => (e.type === 'instrument' ? [e.event] : [])), next: r.nextUrl };
}

describe('bybit instruments', () => {
  test('option listing: strike from the symbol, -USDT settle, pagination cursor', () => {
    const { list, next } = listing('bybit/instruments_option.json');
    assert.equal(next, 'https://api.bybit.com/x?category=option&cursor=0%252C500');
    assert.deepEqual(list[1], {
      venue: 'bybit',
      symbol: 'ETHUSDT',
      ts: 1740000000000,
      receivedAt: RECEIVED_AT,
      id: 'bybit:instrument:ETH-25JUN27-7000-P-USDT',
      instrument: 'ETH-25JUN27-7000-P-USDT',
      kind: 'option',
      strike: 7000,
      expiry: Date.UTC(2027, 5, 25, 8),
      optionType: 'put',
      contractSize: 1,
      settlementCurrency: 'USDT',
      quoteCurrency: 'USDT',
      active: true,
    });
  });

  test('linear listing: perps and futures of tracked coins; LTC skipped', () => {
    const { list, next } = listing('bybit/instruments_linear.json');
    assert.equal(next, null);
    assert.deepEqual(
      list.map((i) => [i.instrument, i.kind, i.expiry]),
      [
        ['BTCUSDT', 'perp', null],
        ['BTC-27DEC24', 'future', 1735286400000],
      ],
    );
  });

  test('connections: options by base coin + tickers, linear trades/tickers/liquidations, spot; 10 args per frame', () => {
    const all = [
      ...listing('bybit/instruments_option.json').list,
      ...listing('bybit/instruments_linear.json').list,
      ...listing('bybit/instruments_spot.json').list,
    ];
    const plans = bybitConnector.connections(['BTCUSDT', 'ETHUSDT'], all);
    const args = (i: number): string[] => (plans[i]?.subscribeFrames ?? []).flatMap((f) => (JSON.parse(f) as { args: string[] }).args);
    assert.deepEqual(
      plans.map((p) => [p.id, p.url]),
      [
        ['option-0', 'wss://stream.bybit.com/v5/public/option'],
        ['linear', 'wss://stream.bybit.com/v5/public/linear'],
        ['spot', 'wss://stream.bybit.com/v5/public/spot'],
      ],
    );
    assert.deepEqual(args(0), ['publicTrade.BTC', 'publicTrade.ETH', 'tickers.BTC-27DEC24-100000-C', 'tickers.ETH-25JUN27-7000-P-USDT']);
    assert.deepEqual(args(1), ['publicTrade.BTCUSDT', 'tickers.BTCUSDT', 'allLiquidation.BTCUSDT']);
    assert.deepEqual(args(2), ['publicTrade.BTCUSDT']);
    assert.deepEqual(plans[0]?.heartbeat, { kind: 'app_ping', intervalMs: 20000, payload: '{"op":"ping"}' });
  });

  test('arg limits: 10 args per frame, 2000 option args per connection', () => {
    const many: Instrument[] = Array.from({ length: 2500 }, (_, n) => {
      const i = bybitConnector.instrumentFromName(`BTC-27DEC24-${1000 + n}-C`, 0);
      assert.ok(i !== null);
      return i;
    });
    const plans = bybitConnector.connections(['BTCUSDT'], many);
    assert.deepEqual(
      plans.map((p) => p.id),
      ['option-0', 'option-1'],
    );
    assert.equal(plans[0]?.subscribeFrames.length, 200);
    for (const f of plans[0]?.subscribeFrames ?? []) assert.ok((JSON.parse(f) as { args: string[] }).args.length <= 10);
  });

  test('overridable base URLs (sandbox)', () => {
    const sandbox = createBybitConnector({ option: 'ws://127.0.0.1:9999/v5/public/option', rest: 'http://127.0.0.1:9998' });
    const plans = sandbox.connections(['BTCUSDT'], listing('bybit/instruments_option.json').list);
    assert.equal(plans[0]?.url, 'ws://127.0.0.1:9999/v5/public/option');
    assert.equal(
      sandbox.instrumentRequests(['BTCUSDT'])[0]?.url,
      'http://127.0.0.1:9998/v5/market/instruments-info?category=option&baseCoin=BTC&limit=1000',
    );
  });
});
