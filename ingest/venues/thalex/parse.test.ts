/**
 * Thalex parser tests. No public recording exists: the recent_trades array and the price_index example are the
 * documented examples of the Thalex WS spec (TmsKtel/thalex_rust_sdk ws_spec.json, RecentTrades / Index); the
 * object-shaped trade follows go-thalex types; ticker frames and the listing are CONSTRUCTED from the documented
 * fields (values ours). See fixtures/README.md.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { registerInstruments } from '../../connector/context.ts';
import { fixtureLine, fixtureText } from '../fixtures/load.ts';
import { hash32 } from '../../connector/parse-helpers.ts';
import { assertDeadLetter, assertIgnored, ctxFor, first, RECEIVED_AT } from '../testing/run-parser.ts';
import type { ParserContext } from '../../connector/types.ts';
import { thalexConnector } from './index.ts';
import { parseThalexInstruments } from './instruments.ts';

const parse = thalexConnector.parse;

function listedCtx(): ParserContext {
  const ctx = ctxFor('thalex');
  const r = parseThalexInstruments(fixtureText('thalex/instruments.json'), RECEIVED_AT);
  assert.ok(r.ok);
  registerInstruments(ctx, r.events);
  return ctx;
}

describe('thalex instruments and subscriptions', () => {
  test('listing: expiration_timestamp seconds -> ms, combos and untracked skipped', () => {
    const ctx = listedCtx();
    assert.deepEqual([...ctx.instruments.keys()], ['BTC-PERPETUAL', 'BTC-11MAY22-32400-C', 'ETH-25OCT24-2500-P']);
    assert.deepEqual(ctx.instruments.get('BTC-11MAY22-32400-C'), {
      venue: 'thalex',
      symbol: 'BTCUSDT',
      ts: RECEIVED_AT,
      receivedAt: RECEIVED_AT,
      id: 'thalex:instrument:BTC-11MAY22-32400-C',
      instrument: 'BTC-11MAY22-32400-C',
      kind: 'option',
      strike: 32400,
      expiry: 1652256000000,
      optionType: 'call',
      contractSize: 1,
      settlementCurrency: 'USD',
      quoteCurrency: 'USD',
      active: true,
    });
    assert.equal(ctx.instruments.get('BTC-PERPETUAL')?.expiry, null);
    assert.equal(parseThalexInstruments('{"result":[{"instrument_name":"BTC-1JAN25-1-C","type":"option"}]}', 1).ok, false);
    assert.equal(parseThalexInstruments('{"error":{"code":1}}', 1).ok, false);
  });

  test('connections: recent_trades + price_index per underlying, 1000ms tickers per instrument', () => {
    const plans = thalexConnector.connections(['BTCUSDT'], [...listedCtx().instruments.values()]);
    assert.deepEqual(JSON.parse(plans[0]?.subscribeFrames[0] ?? ''), {
      method: 'public/subscribe',
      id: 100,
      params: {
        channels: ['recent_trades.BTCUSD.all', 'price_index.BTCUSD', 'ticker.BTC-PERPETUAL.1000ms', 'ticker.BTC-11MAY22-32400-C.1000ms'],
      },
    });
    assert.equal(plans[0]?.url, 'wss://thalex.com/ws/api/v2');
    assert.deepEqual(
      thalexConnector.instrumentRequests(['BTCUSDT']).map((r) => r.url),
      ['https://thalex.com/api/v2/public/instruments'],
    );
  });
});

describe('thalex trades', () => {
  test('recent_trades array items (spec example): seconds -> ms, hash id, option + perp', () => {
    const [o, p] = eventsOf2(
      parse(fixtureLine('thalex/docs.jsonl', '"channel_name":"recent_trades.BTCUSD.all","notification":[['), listedCtx()),
    );
    const tradeId = hash32('BTC-11MAY22-32400-C|1652187265.515|400|1|buy');
    assert.deepEqual(o, {
      venue: 'thalex',
      symbol: 'BTCUSDT',
      ts: 1652187265515,
      receivedAt: RECEIVED_AT,
      id: `thalex:BTC-11MAY22-32400-C:${tradeId}`,
      instrument: 'BTC-11MAY22-32400-C',
      tradeId,
      side: 'buy',
      price: 400,
      size: 1,
      strike: 32400,
      expiry: 1652256000000,
      optionType: 'call',
      priceCurrency: 'USD',
      priceUsd: 400,
      premiumUsd: 400,
      iv: null,
      indexPrice: null,
      underlyingPrice: null,
      block: false,
    });
    assert.deepEqual(p, {
      venue: 'thalex',
      symbol: 'BTCUSDT',
      ts: 1652187266125,
      receivedAt: RECEIVED_AT,
      id: `thalex:BTC-PERPETUAL:${hash32('BTC-PERPETUAL|1652187266.125|30150|0.25|sell')}`,
      instrument: 'BTC-PERPETUAL',
      tradeId: hash32('BTC-PERPETUAL|1652187266.125|30150|0.25|sell'),
      side: 'sell',
      price: 30150,
      size: 0.25,
      market: 'perp',
    });
    // stable across redeliveries
    const again = eventsOf2(
      parse(fixtureLine('thalex/docs.jsonl', '"channel_name":"recent_trades.BTCUSD.all","notification":[['), listedCtx()),
    );
    assert.equal(again[0]?.id, o?.id);
  });

  test('object-shaped trades (go-thalex model) keep the venue trade id', () => {
    const t = first(parse(fixtureLine('thalex/docs.jsonl', 'T123'), listedCtx()), 'perp_trade');
    assert.deepEqual([t.tradeId, t.ts, t.size, t.side], ['T123', 1652187267250, 0.5, 'buy']);
  });
});

function eventsOf2(r: ReturnType<typeof parse>): readonly { readonly id: string }[] {
  assert.equal(r.outcome, 'events');
  return r.ok ? r.events.map((e) => e.event) : [];
}

describe('thalex ticker and index', () => {
  test('option ticker: mark, iv, delta, forward, index, open_interest; mark_timestamp seconds -> ms', () => {
    const t = first(parse(fixtureLine('thalex/docs.jsonl', '"channel_name":"ticker.BTC-11MAY22'), listedCtx()), 'option_ticker');
    assert.deepEqual(t, {
      venue: 'thalex',
      symbol: 'BTCUSDT',
      ts: 1652187270125,
      receivedAt: RECEIVED_AT,
      id: 'thalex:ticker:BTC-11MAY22-32400-C:1652187270125',
      instrument: 'BTC-11MAY22-32400-C',
      strike: 32400,
      expiry: 1652256000000,
      optionType: 'call',
      markPrice: 402.5,
      markIv: 0.6512,
      bidIv: null,
      askIv: null,
      delta: 0.4123,
      gamma: null,
      vega: null,
      theta: null,
      openInterest: 37.5,
      underlyingPrice: 30185.25,
      indexPrice: 30120.5,
      priceCurrency: 'USD',
      bidPrice: 395,
      askPrice: 410,
      bidPriceUsd: 395,
      askPriceUsd: 410,
      bidSize: 2.5,
      askSize: 1.2,
      lastPrice: 400,
      lastPriceUsd: 400,
      volume24h: 12.5,
    });
  });

  test('perp ticker: funding_rate, open_interest, mark, index', () => {
    const s = first(parse(fixtureLine('thalex/docs.jsonl', 'ticker.BTC-PERPETUAL'), listedCtx()), 'perp_stats');
    assert.deepEqual([s.fundingRate, s.openInterest, s.markPrice, s.indexPrice, s.ts], [0.000125, 845.25, 30152.5, 30120.5, 1652187270500]);
  });

  test('price_index (spec example)', () => {
    const e = first(parse(fixtureLine('thalex/docs.jsonl', '"channel_name":"price_index.BTCUSD"'), ctxFor('thalex')), 'index');
    assert.deepEqual(e, {
      venue: 'thalex',
      symbol: 'BTCUSDT',
      ts: 946684800000,
      receivedAt: RECEIVED_AT,
      id: 'thalex:index:BTCUSD:946684800000',
      kind: 'index',
      name: 'BTCUSD',
      value: 47389.10833333334,
    });
  });
});

describe('thalex control and broken frames', () => {
  test('ack, error, untracked', () => {
    assertIgnored(parse(fixtureLine('thalex/docs.jsonl', '"result"'), ctxFor('thalex')), 'ack');
    assertIgnored(parse(fixtureLine('thalex/docs.jsonl', '"error"'), ctxFor('thalex')), 'venue_error');
    assertIgnored(parse(fixtureLine('thalex/docs.jsonl', 'XRPUSD'), ctxFor('thalex')), 'untracked');
  });

  test('unknown channel, truncated, malformed and wrong shapes -> dead letters', () => {
    assertDeadLetter(parse(fixtureLine('thalex/docs.jsonl', 'lwt.'), ctxFor('thalex')), /unknown channel: lwt/);
    assertDeadLetter(parse(fixtureLine('thalex/docs.jsonl', 'T123').slice(0, 70), ctxFor('thalex')), /malformed json/);
    assertDeadLetter(
      parse('{"channel_name":"recent_trades.BTCUSD.all","notification":[[400,"1","buy"]]}', ctxFor('thalex')),
      /trade is not/,
    );
    assertDeadLetter(parse('{"channel_name":"recent_trades.BTCUSD.all","notification":{}}', ctxFor('thalex')), /not an array/);
    assertDeadLetter(
      parse('{"channel_name":"price_index.BTCUSD","notification":{"price":1}}', ctxFor('thalex')),
      /without price\/timestamp/,
    );
    assertDeadLetter(parse('{"channel_name":"ticker.BTC-FOO.1000ms","notification":{}}', ctxFor('thalex')), /unparseable instrument/);
    assertDeadLetter(parse('{"x":1}', ctxFor('thalex')), /unknown message/);
    assertIgnored(parse('{"channel_name":"recent_trades.ETHUSD.all","notification":[]}', ctxFor('thalex')), 'untracked');
  });
});
