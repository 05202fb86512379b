/**
 * Delta (delta_india / delta) parser tests against the CURRENT compact public channels. No public recording of
 * them exists: the `trades` frame is the documented example (delta-exchange/slate _websocket_api.md, 2026-04);
 * ticker / funding_rate / mark_price frames and the products body are
 * CONSTRUCTED from the documented field layouts (values ours). The legacy channels are not parsed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { registerInstruments } from '../../connector/context.ts';
import { fixtureLine, fixtureLines, fixtureText } from '../fixtures/load.ts';
import { hash32 } from '../../connector/parse-helpers.ts';
import { assertDeadLetter, assertIgnored, ctxFor, first, RECEIVED_AT } from '../testing/run-parser.ts';
import type { ParserContext } from '../../connector/types.ts';
import { createDeltaConnector, deltaConnector, deltaIndiaConnector } from './index.ts';
import { deltaProductsUrl, parseDeltaProducts } from './instruments.ts';
import { parseDeltaFrame, parseDeltaFrameJson } from './parse.ts';
import { assertSamePaths, frameVariants, jsonParseCalls } from '../testing/fast-path.ts';

const parse = deltaIndiaConnector.parse;
const URL = deltaProductsUrl('https://api.india.delta.exchange');

function listedCtx(venue: 'delta_india' | 'delta' = 'delta_india'): ParserContext {
  const ctx = ctxFor(venue);
  const r = parseDeltaProducts(venue, fixtureText('delta/products.json'), RECEIVED_AT, URL);
  assert.ok(r.ok);
  registerInstruments(ctx, r.events);
  return ctx;
}

describe('delta products and subscriptions', () => {
  test('products: contract_value, settlement_time 12:00 UTC, untracked skipped, cursor next page', () => {
    const r = parseDeltaProducts('delta_india', fixtureText('delta/products.json'), RECEIVED_AT, URL);
    assert.ok(r.ok);
    const list = r.events.flatMap((e) => (e.type === 'instrument' ? [e.event] : []));
    assert.deepEqual(
      list.map((i) => i.instrument),
      ['BTCUSD', 'C-BTC-90000-310326', 'P-BTC-80000-310326', 'ETHUSD'],
    );
    assert.deepEqual(list[1], {
      venue: 'delta_india',
      symbol: 'BTCUSDT',
      ts: RECEIVED_AT,
      receivedAt: RECEIVED_AT,
      id: 'delta_india:instrument:C-BTC-90000-310326',
      instrument: 'C-BTC-90000-310326',
      kind: 'option',
      strike: 90000,
      expiry: Date.UTC(2026, 2, 31, 12),
      optionType: 'call',
      contractSize: 0.001,
      settlementCurrency: 'USD',
      quoteCurrency: 'USD',
      active: true,
    });
    assert.equal(r.nextUrl, `${URL}&after=g3QAAAACZAAKY3JlYXRlZF9hdHQAAAAN`);
    assert.equal(parseDeltaProducts('delta_india', '{"success":false,"error":{"code":"x"}}', 1, URL).ok, false);
    assert.equal(parseDeltaProducts('delta', fixtureText('delta/products.json'), 1, URL).ok, true);
  });

  test('connections: enable_heartbeat setup, trades by option category + perps, ticker by chain, funding, MARK:', () => {
    const [plan] = deltaIndiaConnector.connections(['BTCUSDT'], [...listedCtx().instruments.values()]);
    assert.equal(plan?.url, 'wss://public-socket.india.delta.exchange');
    assert.deepEqual(plan?.heartbeat, { kind: 'server_test_request', setup: '{"type":"enable_heartbeat"}', timeoutMs: 35000 });
    assert.deepEqual(JSON.parse(plan?.subscribeFrames[0] ?? ''), {
      type: 'subscribe',
      payload: {
        channels: [
          { name: 'trades', symbols: ['call_options', 'put_options', 'BTCUSD'] },
          { name: 'ticker', symbols: ['BTC-310326', 'BTCUSD'] },
          { name: 'funding_rate', symbols: ['BTCUSD'] },
          { name: 'mark_price', symbols: ['MARK:BTCUSD'] },
        ],
      },
    });
    assert.deepEqual(deltaConnector.urls, { ws: 'wss://socket.delta.exchange', rest: 'https://api.delta.exchange' });
    assert.equal(
      createDeltaConnector('delta', { ws: 'ws://x' }).connections(['ETHUSDT'], [...listedCtx('delta').instruments.values()])[0]?.url,
      'ws://x',
    );
    assert.equal(deltaConnector.venue, 'delta');
  });
});

describe('delta trades', () => {
  test('perp trade (docs example): r=m -> taker sell, contracts × 0.001, µs -> ms, hash id', () => {
    const t = first(parse(fixtureLine('delta/docs.jsonl', '"type":"trades","sy":"BTCUSD"'), listedCtx()), 'perp_trade');
    const h = hash32('BTCUSD|1775800366578410|72141.5|1|m');
    assert.deepEqual(t, {
      venue: 'delta_india',
      symbol: 'BTCUSDT',
      ts: 1775800366578,
      receivedAt: RECEIVED_AT,
      id: `delta_india:BTCUSD:1775800366578410:${h}`,
      instrument: 'BTCUSD',
      tradeId: `1775800366578410:${h}`,
      side: 'sell',
      price: 72141.5,
      size: 0.001,
      market: 'perp',
    });
  });

  test('option trade: r=t -> taker buy, 250 contracts × 0.001 = 0.25 BTC, USD premium', () => {
    const t = first(parse(fixtureLine('delta/docs.jsonl', '"sy":"C-BTC-90000-310326"'), listedCtx()), 'option_trade');
    assert.deepEqual(
      [t.side, t.size, t.price, t.priceUsd, t.premiumUsd, t.expiry, t.ts],
      ['buy', 0.25, 1520.5, 1520.5, 380.125, Date.UTC(2026, 2, 31, 12), 1775800366600],
    );
  });

  test('global venue tags its events delta', () => {
    const t = first(
      deltaConnector.parse(fixtureLine('delta/docs.jsonl', '"type":"trades","sy":"BTCUSD"'), listedCtx('delta')),
      'perp_trade',
    );
    assert.equal(t.venue, 'delta');
  });
});

describe('delta trade frames read without JSON.parse', () => {
  const lines = fixtureLines('delta/docs.jsonl');

  test('every fixture frame and its variants: the same result and context state as the JSON.parse path', () => {
    const frames = lines.flatMap((l) => frameVariants(l, l.startsWith('{"type":"trades"') ? 'frame' : () => undefined));
    assert.ok(frames.length > 200, `${frames.length} frames`);
    assertSamePaths(frames, parseDeltaFrame, parseDeltaFrameJson, () => listedCtx());
  });

  test('trade frames take the one-pass path (no JSON.parse call), a ticker frame does not', () => {
    const trades = lines.filter((l) => l.startsWith('{"type":"trades"'));
    assert.equal(trades.length, 3);
    const ctx = listedCtx();
    assert.deepEqual(
      trades.map((l) => parseDeltaFrame(l, ctx).outcome),
      ['events', 'events', 'ignored'],
    );
    assert.equal(
      jsonParseCalls(() => trades.forEach((l) => parseDeltaFrame(l, ctx))),
      0,
    );
    assert.equal(
      jsonParseCalls(() => parseDeltaFrame(fixtureLine('delta/docs.jsonl', '"type":"ticker","sy":"BTC-310326"'), ctx)),
      1,
    );
  });
});

describe('delta ticker, funding, mark price', () => {
  test('chain ticker: index from sp, option rows with qiv [ask,bid,mark] fractions, g [d,g,rho,theta,vega], oi contracts -> coins', () => {
    const r = parse(fixtureLine('delta/docs.jsonl', '"sy":"BTC-310326"'), listedCtx());
    assert.equal(r.outcome, 'events');
    const ev = r.ok ? r.events : [];
    assert.deepEqual(ev[0], {
      type: 'index',
      event: {
        venue: 'delta_india',
        symbol: 'BTCUSDT',
        ts: 1775800370000,
        receivedAt: RECEIVED_AT,
        id: 'delta_india:index:BTCUSD:1775800370000',
        kind: 'index',
        name: 'BTCUSD',
        value: 72150.25,
      },
    });
    assert.deepEqual(ev[1]?.event, {
      venue: 'delta_india',
      symbol: 'BTCUSDT',
      ts: 1775800370000,
      receivedAt: RECEIVED_AT,
      id: 'delta_india:ticker:C-BTC-90000-310326:1775800370000',
      instrument: 'C-BTC-90000-310326',
      strike: 90000,
      expiry: Date.UTC(2026, 2, 31, 12),
      optionType: 'call',
      markPrice: 1525.75,
      markIv: 0.455,
      bidIv: 0.4488,
      askIv: 0.4612,
      delta: 0.2512,
      gamma: 0.00002345,
      vega: 45.75,
      theta: -85.25,
      openInterest: 18.947,
      underlyingPrice: null,
      indexPrice: 72150.25,
      // q ["1530","120","1515","300"]: ask 1530 × 120 contracts, bid 1515 × 300 contracts; × 0.001 BTC; ohlc close 1525
      priceCurrency: 'USD',
      bidPrice: 1515,
      askPrice: 1530,
      bidPriceUsd: 1515,
      askPriceUsd: 1530,
      bidSize: 0.3,
      askSize: 0.12,
      lastPrice: 1525,
      lastPriceUsd: 1525,
      volume24h: null,
    });
    const put = ev[2]?.event;
    assert.ok(put !== undefined && 'markIv' in put);
    assert.deepEqual([put.markIv, put.delta, put.openInterest], [null, null, 0]);
    assert.ok('bidPrice' in put);
    assert.deepEqual([put.bidPrice, put.askPrice, put.bidSize, put.lastPrice], [null, null, null, null]);
  });

  test('perp ticker: oi coins, mark, spot; the perp row IV is ignored', () => {
    const [, s] = eventsOf(parse(fixtureLine('delta/docs.jsonl', '"sy":"BTCUSD","sp"'), listedCtx()));
    assert.deepEqual(s, {
      venue: 'delta_india',
      symbol: 'BTCUSDT',
      ts: 1788725367575,
      receivedAt: RECEIVED_AT,
      id: 'delta_india:ticker:BTCUSD:1788725367575',
      instrument: 'BTCUSD',
      openInterest: 876.85,
      openInterestUsd: null,
      fundingRate: null,
      nextFundingTime: null,
      markPrice: 79750.5,
      indexPrice: 79777.5,
    });
  });

  test('funding_rate: percent -> fraction, nfr µs -> next funding ms; mark_price MARK: prefix', () => {
    const f = first(parse(fixtureLine('delta/docs.jsonl', '"type":"funding_rate"'), listedCtx()), 'perp_stats');
    assert.deepEqual([f.fundingRate, f.nextFundingTime, f.ts, f.markPrice], [0.0001, 1775808000000, 1775800370000, null]);
    const m = first(parse(fixtureLine('delta/docs.jsonl', '"type":"mark_price"'), listedCtx()), 'perp_stats');
    assert.deepEqual(
      [m.markPrice, m.instrument, m.fundingRate, m.id],
      [72145.12, 'BTCUSD', null, 'delta_india:mark_price:BTCUSD:1775800370100'],
    );
  });
});

function eventsOf(r: ReturnType<typeof parse>): unknown[] {
  assert.equal(r.outcome, 'events');
  return r.ok ? r.events.map((e) => e.event) : [];
}

describe('delta control and broken frames', () => {
  test('acks, subscription errors, heartbeat, pong, untracked', () => {
    assertIgnored(parse(fixtureLine('delta/docs.jsonl', '"type":"subscriptions"'), ctxFor('delta_india')), 'ack');
    assertIgnored(parse(fixtureLine('delta/docs.jsonl', 'forbidden'), ctxFor('delta_india')), 'venue_error');
    assertIgnored(parse(fixtureLine('delta/docs.jsonl', 'heartbeat'), ctxFor('delta_india')), 'heartbeat');
    assertIgnored(parse(fixtureLine('delta/docs.jsonl', 'pong'), ctxFor('delta_india')), 'pong');
    assertIgnored(parse(fixtureLine('delta/docs.jsonl', 'XRPUSD'), listedCtx()), 'untracked');
  });

  test('legacy channels, unlisted symbols, truncated and malformed -> dead letters', () => {
    assertDeadLetter(parse(fixtureLine('delta/docs.jsonl', 'v2/ticker","symbol'), listedCtx()), /unknown channel: v2\/ticker/);
    assertDeadLetter(
      parse(fixtureLine('delta/docs.jsonl', '"type":"trades","sy":"BTCUSD"'), ctxFor('delta_india')),
      /not in listing: BTCUSD/,
    );
    assertDeadLetter(parse(fixtureLine('delta/docs.jsonl', '"type":"trades","sy":"BTCUSD"').slice(0, 40), listedCtx()), /malformed json/);
    assertDeadLetter(parse('{"type":"trades","sy":"BTCUSD","p":"1","s":1,"r":"x","t":1}', listedCtx()), /trade missing/);
    assertDeadLetter(parse('{"type":"ticker","sy":"BTCUSD"}', listedCtx()), /ticker missing/);
    assertDeadLetter(parse('{"sy":"BTCUSD"}', listedCtx()), /without type/);
    assertDeadLetter(parse('3', listedCtx()), /not a JSON object/);
  });
});
