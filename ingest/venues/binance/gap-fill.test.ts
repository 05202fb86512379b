/**
 * Binance gap-fill parsers on the documented REST shapes (USDⓈ-M futures "Compressed/Aggregate Trades List" and spot
 * "Recent Trades List" examples, symbol names ours) and the aggTrades pagination rule: a full page continues by id,
 * a short one with the window before the end moves to the next window, otherwise the fill is done.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ctxFor, RECEIVED_AT } from '../testing/run-parser.ts';
import type { Instrument } from '#schemas/events.ts';
import { binanceInstrumentFromName } from './instruments.ts';
import { binanceGapFill, parseAggTradesPage, parseOptionTrades, parseSpotTrades, type AggTradesUrls } from './gap-fill.ts';

const urls: AggTradesUrls = { fromId: (id) => `fromId=${id}`, window: (from) => `window=${from}` };
const agg = (a: number, T: number): Record<string, unknown> => ({ a, p: '90000.5', q: '0.004', f: a, l: a, T, m: false });

test('aggTrades row -> perp trade (m = buyer is maker: the taker sold)', () => {
  const body = JSON.stringify([{ a: 26129, p: '0.01633102', q: '4.70443515', f: 27781, l: 27781, T: 1498793709153, m: true }]);
  const r = parseAggTradesPage(body, ctxFor('binance', 'rest'), 'BTCUSDT', 1498793709999, 1498793709999, urls);
  assert.ok(r.ok);
  assert.deepEqual(r.events, [
    {
      type: 'perp_trade',
      event: {
        venue: 'binance',
        symbol: 'BTCUSDT',
        ts: 1498793709153,
        receivedAt: RECEIVED_AT,
        id: 'binance:BTCUSDT:26129',
        instrument: 'BTCUSDT',
        tradeId: '26129',
        side: 'sell',
        market: 'perp',
        price: 0.01633102,
        size: 4.70443515,
      },
    },
  ]);
  assert.equal(r.nextUrl, null, 'short page, window at the end: done');
});

test('aggTrades pagination: full page -> by id; short page before the end -> next window; error body -> failure', () => {
  const full = JSON.stringify(Array.from({ length: 1000 }, (_, i) => agg(i + 1, 1000 + i)));
  const a = parseAggTradesPage(full, ctxFor('binance', 'rest'), 'BTCUSDT', 5000, 9000, urls);
  assert.ok(a.ok);
  assert.equal(a.events.length, 1000);
  assert.equal(a.nextUrl, 'fromId=1001');
  const short = JSON.stringify([agg(7, 4000), agg(8, 4100)]);
  const b = parseAggTradesPage(short, ctxFor('binance', 'rest'), 'BTCUSDT', 5000, 9000, urls);
  assert.ok(b.ok);
  assert.equal(b.nextUrl, 'window=5001');
  const c = parseAggTradesPage('[]', ctxFor('binance', 'rest'), 'BTCUSDT', 9000, 9000, urls);
  assert.ok(c.ok && c.events.length === 0 && c.nextUrl === null);
  const d = parseAggTradesPage('{"code":-1121,"msg":"Invalid symbol."}', ctxFor('binance', 'rest'), 'BTCUSDT', 9000, 9000, urls);
  assert.ok(!d.ok && /-1121 Invalid symbol/.test(d.reason));
});

test('option trades row (signed qty, side -1/1) -> option trade; the REST id is the stream trade id', () => {
  const body = JSON.stringify([
    { id: '1', symbol: 'BTC-220722-19000-C', price: '1000', qty: '-0.1', quoteQty: '-100', side: -1, time: 1592449455993 },
  ]);
  const r = parseOptionTrades(body, ctxFor('binance', 'rest'), 'BTC-220722-19000-C');
  assert.ok(r.ok);
  const [e] = r.events;
  assert.ok(e !== undefined && e.type === 'option_trade');
  assert.deepEqual(
    {
      id: e.event.id,
      tradeId: e.event.tradeId,
      side: e.event.side,
      size: e.event.size,
      price: e.event.price,
      premiumUsd: e.event.premiumUsd,
      strike: e.event.strike,
      optionType: e.event.optionType,
      block: e.event.block,
      ts: e.event.ts,
    },
    {
      id: 'binance:BTC-220722-19000-C:1',
      tradeId: '1',
      side: 'sell',
      size: 0.1,
      price: 1000,
      premiumUsd: 100,
      strike: 19000,
      optionType: 'call',
      block: false,
      ts: 1592449455993,
    },
  );
  const bad = parseOptionTrades('{"code":-1121,"msg":"Invalid symbol."}', ctxFor('binance', 'rest'), 'X');
  assert.ok(!bad.ok && /-1121/.test(bad.reason));
});

test('spot trades row -> spot trade', () => {
  const body = JSON.stringify([
    {
      id: 28457,
      price: '4.00000100',
      qty: '12.00000000',
      quoteQty: '48.000012',
      time: 1499865549590,
      isBuyerMaker: false,
      isBestMatch: true,
    },
  ]);
  const r = parseSpotTrades(body, ctxFor('binance', 'rest'), 'BTCUSDT');
  assert.ok(r.ok);
  assert.deepEqual(r.events, [
    {
      type: 'spot_trade',
      event: {
        venue: 'binance',
        symbol: 'BTCUSDT',
        ts: 1499865549590,
        receivedAt: RECEIVED_AT,
        id: 'binance:BTCUSDT:28457',
        instrument: 'BTCUSDT',
        tradeId: '28457',
        side: 'buy',
        market: 'spot',
        price: 4.000001,
        size: 12,
      },
    },
  ]);
});

test('requests: perp windows when a market connection was down, spot for spot, each listed option (nearest expiry first, paced) for public', () => {
  const spec = binanceGapFill({ fapi: 'F', api: 'A', eapi: 'E' }, 900);
  const perp = binanceInstrumentFromName('BTCUSDT', 0);
  const eth = binanceInstrumentFromName('ETHUSDT', 0);
  assert.ok(perp !== null && perp.kind === 'perp' && eth !== null);
  // A dated future of the same pair is not a perp the connection subscribes to.
  const far = binanceInstrumentFromName('BTC-261225-100000-C', 0);
  const near = binanceInstrumentFromName('BTC-260102-90000-P', 0);
  assert.ok(far !== null && near !== null && far.kind === 'option');
  const instruments: Instrument[] = [
    perp,
    { ...perp, instrument: 'BTCUSDT_260327' },
    eth,
    far,
    near,
    { ...near, instrument: 'BTC-260102-95000-P', active: false },
  ];
  const ids = (connections: string[]): string[] =>
    spec.requests(['BTCUSDT'], 1_000, 2_000, { connections: new Set(connections), instruments }).map((r) => r.url);
  assert.deepEqual(ids(['market-0']), ['F/fapi/v1/aggTrades?symbol=BTCUSDT&limit=1000&startTime=1000&endTime=7000']);
  assert.deepEqual(ids(['spot-0']), ['A/api/v3/trades?symbol=BTCUSDT&limit=1000']);
  assert.deepEqual(ids(['public-0']), [
    'E/eapi/v1/trades?symbol=BTC-260102-90000-P&limit=500',
    'E/eapi/v1/trades?symbol=BTC-261225-100000-C&limit=500',
  ]);
  const paced = spec.requests(['BTCUSDT'], 1_000, 2_000, { connections: new Set(['public-0', 'market-0']), instruments });
  assert.deepEqual(
    paced.map((r) => r.paceMs ?? 0),
    [0, 900, 900],
    'perp first, then the paced option crawl',
  );
  assert.equal(spec.covers('public-0'), true);
  assert.equal(spec.covers('market-1'), true);
});
