import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureText } from '../fixtures/load.ts';
import { RECEIVED_AT } from '../testing/run-parser.ts';
import type { Instrument } from '#schemas/events.ts';
import { deribitConnector } from './index.ts';
import { parseDeribitInstruments } from './instruments.ts';
import { parseDeribitName } from './names.ts';

function listing(): Instrument[] {
  const r = parseDeribitInstruments(fixtureText('deribit/get_instruments.json'), RECEIVED_AT);
  assert.ok(r.ok);
  return r.events.flatMap((e) => (e.type === 'instrument' ? [e.event] : []));
}

describe('deribit instruments', () => {
  test('get_instruments: tracked perps and options; XRP and combos skipped', () => {
    const list = listing();
    assert.deepEqual(
      list.map((i) => i.instrument),
      ['BTC-PERPETUAL', 'BTC-27DEC24-100000-C', 'SOL_USDC-27DEC24-150-P'],
    );
    assert.deepEqual(list[1], {
      venue: 'deribit',
      symbol: 'BTCUSDT',
      ts: 1719561600000,
      receivedAt: RECEIVED_AT,
      id: 'deribit:instrument:BTC-27DEC24-100000-C',
      instrument: 'BTC-27DEC24-100000-C',
      kind: 'option',
      strike: 100000,
      expiry: Date.UTC(2024, 11, 27, 8),
      optionType: 'call',
      contractSize: 1,
      settlementCurrency: 'BTC',
      quoteCurrency: 'BTC',
      active: true,
    });
    assert.equal(list[0]?.kind, 'perp');
    assert.equal(list[0]?.expiry, null);
    assert.equal(list[2]?.symbol, 'SOLUSDT');
  });

  test('name parsing: no zero-padded day, d = decimal point, 08:00 UTC', () => {
    assert.deepEqual(parseDeribitName('MATIC_USDC-9MAR24-1d02-C'), {
      kind: 'option',
      base: 'MATIC',
      linearQuote: 'USDC',
      expiry: Date.UTC(2024, 2, 9, 8),
      strike: 1.02,
      optionType: 'call',
    });
    assert.equal(parseDeribitName('BTC-5JUN20-9250-C')?.expiry, Date.UTC(2020, 5, 5, 8));
    assert.equal(parseDeribitName('BTC-PERPETUAL')?.kind, 'perp');
    assert.equal(parseDeribitName('BTC-27DEC24')?.kind, 'future');
    assert.equal(parseDeribitName('BTC-FS-30SEP22_PERP')?.kind, 'combo');
    assert.equal(parseDeribitName('BTC-31FEB24-1-C'), null);
    assert.equal(deribitConnector.instrumentFromName('SOL_USDC-27MAR26-150-C', 1)?.quoteCurrency, 'USDC');
    assert.equal(deribitConnector.instrumentFromName('XRP_USDC-27MAR26-1-C', 1), null);
  });

  test('connections: per-currency option trades, per-instrument tickers, index + DVOL, heartbeat', () => {
    const plans = deribitConnector.connections(['BTCUSDT', 'SOLUSDT'], listing());
    assert.deepEqual(
      plans.map((p) => p.id),
      ['public', 'tickers-0'],
    );
    const channels = (frames: readonly string[]): string[] =>
      frames.flatMap((f) => (JSON.parse(f) as { params: { channels: string[] } }).params.channels);
    assert.deepEqual(channels(plans[0]?.subscribeFrames ?? []), [
      'trades.BTC-PERPETUAL.100ms',
      'ticker.BTC-PERPETUAL.100ms',
      'trades.option.BTC.100ms',
      'trades.option.USDC.100ms',
      'deribit_price_index.btc_usd',
      'deribit_volatility_index.btc_usd',
      'deribit_price_index.sol_usdc',
    ]);
    assert.deepEqual(channels(plans[1]?.subscribeFrames ?? []), [
      'ticker.BTC-27DEC24-100000-C.100ms',
      'ticker.SOL_USDC-27DEC24-150-P.100ms',
    ]);
    assert.equal(plans[0]?.url, 'wss://www.deribit.com/ws/api/v2');
    assert.equal(plans[0]?.heartbeat.kind, 'server_test_request');
  });
});
