/**
 * Derive v3 parser tests. No public recording of v3 trades exists: the frames in fixtures/derive/docs.jsonl are
 * CONSTRUCTED from the documented payload schemas (derivexyz/derive-py specs/subscriptions.json:
 * tradesByInstrumentTypeCurrencyNotification, TickerSlimPayload/OptionPricing, SpotFeedPayload), values ours.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { registerInstruments } from '../../connector/context.ts';
import { fixtureLine, fixtureText } from '../fixtures/load.ts';
import { assertDeadLetter, assertIgnored, ctxFor, first, only, RECEIVED_AT } from '../testing/run-parser.ts';
import type { ParserContext } from '../../connector/types.ts';
import { deriveConnector, createDeriveConnector } from './index.ts';
import type { DerivePostRequest } from './index.ts';
import { parseDeriveInstruments } from './instruments.ts';
import { parseDeriveName } from './names.ts';

const parse = deriveConnector.parse;
const URL1 = 'https://api.derive.xyz/v3/public/get_all_instruments?instrument_type=option&currency=BTC&expired=false&page=1&page_size=1000';

function listedCtx(): ParserContext {
  const ctx = ctxFor('derive');
  for (const f of ['derive/instruments_option_btc.json', 'derive/instruments_perp_btc.json']) {
    const r = parseDeriveInstruments(fixtureText(f), RECEIVED_AT, URL1);
    assert.ok(r.ok);
    registerInstruments(ctx, r.events);
  }
  return ctx;
}

describe('derive names and listings', () => {
  test('names: YYYYMMDD at 08:00 UTC, `_` fractional strike, perps', () => {
    assert.deepEqual(parseDeriveName('BTC-20261225-80000_5-P'), {
      kind: 'option',
      base: 'BTC',
      expiry: Date.UTC(2026, 11, 25, 8),
      strike: 80000.5,
      optionType: 'put',
    });
    assert.equal(parseDeriveName('BTC-PERP')?.kind, 'perp');
    assert.equal(parseDeriveName('BTC-20261332-1-C'), null);
    assert.equal(parseDeriveName('BTC-20261225-1-X'), null);
  });

  test('get_all_instruments: option_details expiry (s) -> ms, strike, type, inactive kept as inactive; next page URL', () => {
    const r = parseDeriveInstruments(fixtureText('derive/instruments_option_btc.json'), RECEIVED_AT, URL1);
    assert.ok(r.ok);
    const list = r.events.flatMap((e) => (e.type === 'instrument' ? [e.event] : []));
    assert.deepEqual(list[0], {
      venue: 'derive',
      symbol: 'BTCUSDT',
      ts: RECEIVED_AT,
      receivedAt: RECEIVED_AT,
      id: 'derive:instrument:BTC-20261225-100000-C',
      instrument: 'BTC-20261225-100000-C',
      kind: 'option',
      strike: 100000,
      expiry: 1798185600000,
      optionType: 'call',
      contractSize: 1,
      settlementCurrency: 'USDC',
      quoteCurrency: 'USDC',
      active: true,
    });
    assert.equal(list[1]?.strike, 80000.5);
    assert.equal(list[2]?.active, false);
    assert.equal(r.nextUrl, URL1.replace('page=1&', 'page=2&'));
    assert.deepEqual(JSON.parse(r.nextBody ?? ''), {
      instrument_type: 'option',
      currency: 'BTC',
      expired: false,
      page: 2,
      page_size: 1000,
    });
    const empty = parseDeriveInstruments(fixtureText('derive/instruments_empty.json'), RECEIVED_AT, URL1);
    assert.deepEqual(empty, { ok: true, events: [], nextUrl: null });
    assert.deepEqual(parseDeriveInstruments('{"id":1,"error":{"code":-32602,"message":"Invalid params"}}', 1, URL1), {
      ok: false,
      reason: 'venue error: -32602 Invalid params',
    });
    assert.equal(parseDeriveInstruments('{"result":', 1, URL1).ok, false);
  });

  test('requests: POST body + the same fields in the URL, one option and one perp listing per coin', () => {
    const reqs = createDeriveConnector({ rest: 'http://x' }).instrumentRequests(['BTCUSDT', 'HYPEUSDT']) as readonly DerivePostRequest[];
    assert.deepEqual(
      reqs.map((r) => r.id),
      ['derive:option:BTC', 'derive:perp:BTC', 'derive:option:HYPE', 'derive:perp:HYPE'],
    );
    assert.equal(reqs[0]?.method, 'POST');
    assert.deepEqual(JSON.parse(reqs[0]?.body ?? ''), {
      instrument_type: 'option',
      currency: 'BTC',
      expired: false,
      page: 1,
      page_size: 1000,
    });
    assert.equal(
      reqs[0]?.url,
      'http://x/public/get_all_instruments?instrument_type=option&currency=BTC&expired=false&page=1&page_size=1000',
    );
  });

  test('connections: trades per type/currency, spot_feed, ticker_slim per active instrument', () => {
    const plans = deriveConnector.connections(['BTCUSDT'], [...listedCtx().instruments.values()]);
    assert.equal(plans.length, 1);
    const frame = JSON.parse(plans[0]?.subscribeFrames[0] ?? '') as { method: string; params: { channels: string[] } };
    assert.equal(frame.method, 'subscribe');
    assert.deepEqual(frame.params.channels, [
      'trades.option.BTC',
      'spot_feed.BTC',
      'trades.perp.BTC',
      'ticker_slim.BTC-20261225-100000-C.1000',
      'ticker_slim.BTC-20261225-80000_5-P.1000',
      'ticker_slim.BTC-PERP.1000',
    ]);
    assert.deepEqual(plans[0]?.heartbeat, { kind: 'protocol_ping', serverPingEveryMs: 30000, maxConnectionMs: 86400000 });
    assert.equal(plans[0]?.url, 'wss://api.derive.xyz/v3/ws');
    assert.deepEqual(deriveConnector.connections(['SOLUSDT'], [...listedCtx().instruments.values()]), []);
  });
});

describe('derive trades', () => {
  test('trades.option.BTC: USDC price, coins, taker direction, no IV; RFQ fill = block', () => {
    const [a, b] = only(parse(fixtureLine('derive/docs.jsonl', '"channel":"trades.option.BTC'), listedCtx()), 'option_trade');
    assert.deepEqual(a, {
      venue: 'derive',
      symbol: 'BTCUSDT',
      ts: 1779953796231,
      receivedAt: RECEIVED_AT,
      id: 'derive:BTC-20261225-100000-C:c5a8f3e2-4b1d-4e8a-9f0a-1b2c3d4e5f60',
      instrument: 'BTC-20261225-100000-C',
      tradeId: 'c5a8f3e2-4b1d-4e8a-9f0a-1b2c3d4e5f60',
      side: 'sell',
      price: 4215.5,
      strike: 100000,
      expiry: 1798185600000,
      optionType: 'call',
      priceCurrency: 'USDC',
      priceUsd: 4215.5,
      size: 0.25,
      premiumUsd: 1053.875,
      iv: null,
      indexPrice: 96500.25,
      underlyingPrice: null,
      block: false,
    });
    assert.equal(b?.premiumUsd, 3150); // 2100 × 1.5
    assert.equal(b?.block, true);
    assert.equal(b?.strike, 80000.5);
  });

  test('an unlisted option is read from its name (sizes are coins on Derive)', () => {
    const t = first(parse(fixtureLine('derive/docs.jsonl', 'trades.option.ETH'), ctxFor('derive')), 'option_trade');
    assert.deepEqual([t.symbol, t.strike, t.expiry, t.size, t.premiumUsd], ['ETHUSDT', 4000, Date.UTC(2026, 11, 25, 8), 2, 701]);
  });

  test('trades.perp.BTC -> perp_trade', () => {
    const t = first(parse(fixtureLine('derive/docs.jsonl', 'trades.perp.BTC'), listedCtx()), 'perp_trade');
    assert.deepEqual(
      [t.price, t.size, t.side, t.market, t.id],
      [96510.3, 0.125, 'buy', 'perp', 'derive:BTC-PERP:e7cab504-6d3f-4a0c-9b2c-3d4e5f607182'],
    );
  });
});

describe('derive ticker_slim and spot_feed', () => {
  test('option ticker: option_pricing i/bi/ai fractions, greeks, forward, stats.oi coins', () => {
    const t = first(parse(fixtureLine('derive/docs.jsonl', '"channel":"ticker_slim.BTC-20261225-100000-C'), listedCtx()), 'option_ticker');
    assert.deepEqual(t, {
      venue: 'derive',
      symbol: 'BTCUSDT',
      ts: 1779953796231,
      receivedAt: RECEIVED_AT,
      instrument: 'BTC-20261225-100000-C',
      id: 'derive:ticker:BTC-20261225-100000-C:1779953796231',
      strike: 100000,
      expiry: 1798185600000,
      optionType: 'call',
      markPrice: 4220.12,
      markIv: 0.5512,
      bidIv: 0.5401,
      askIv: 0.5634,
      delta: 0.41234,
      gamma: 0.0000123,
      vega: 210.987,
      theta: -45.6789,
      openInterest: 35.75,
      underlyingPrice: 97850.5,
      indexPrice: 96500.25,
      priceCurrency: 'USDC',
      bidPrice: 4150,
      askPrice: 4300,
      bidPriceUsd: 4150,
      askPriceUsd: 4300,
      bidSize: 2.25,
      askSize: 1.5, // B / A
      lastPrice: null,
      lastPriceUsd: null,
      volume24h: 3.2, // stats.v
    });
  });

  test('perp ticker: hourly funding f, oi, mark, index', () => {
    const s = first(parse(fixtureLine('derive/docs.jsonl', 'ticker_slim.BTC-PERP'), listedCtx()), 'perp_stats');
    assert.deepEqual(
      [s.fundingRate, s.openInterest, s.markPrice, s.indexPrice, s.openInterestUsd, s.nextFundingTime, s.ts],
      [0.0000125, 812.345, 96511, 96500.25, null, null, 1779953797100],
    );
  });

  test('spot_feed -> index, sets the latest index price', () => {
    const ctx = ctxFor('derive');
    const e = first(parse(fixtureLine('derive/docs.jsonl', 'spot_feed.BTC'), ctx), 'index');
    assert.deepEqual(e, {
      venue: 'derive',
      symbol: 'BTCUSDT',
      ts: 1779953796000,
      receivedAt: RECEIVED_AT,
      id: 'derive:index:BTC:1779953796000',
      kind: 'index',
      name: 'BTC-USD',
      value: 96500.25,
    });
    assert.equal(ctx.indexPrices.get('BTCUSDT'), 96500.25);
  });
});

describe('derive control, unknown and broken frames', () => {
  test('subscribe ack and error reply', () => {
    assertIgnored(parse(fixtureLine('derive/docs.jsonl', 'current_subscriptions'), ctxFor('derive')), 'ack');
    assertIgnored(parse(fixtureLine('derive/docs.jsonl', 'deprecated'), ctxFor('derive')), 'venue_error');
  });

  test('untracked coin ignored; unknown channel, truncated and malformed frames -> dead letters', () => {
    assertIgnored(parse(fixtureLine('derive/docs.jsonl', 'trades.option.DOGE'), ctxFor('derive')), 'untracked');
    assertDeadLetter(parse(fixtureLine('derive/docs.jsonl', 'orderbook.BTC-PERP'), ctxFor('derive')), /unknown channel: orderbook/);
    const line = fixtureLine('derive/docs.jsonl', 'trades.perp.BTC');
    assertDeadLetter(parse(line.slice(0, 90), ctxFor('derive')), /malformed json/);
    assertDeadLetter(parse('{"method":"subscription","params":{"channel":"trades.perp.BTC","data":{}}}', ctxFor('derive')), /not an array/);
    assertDeadLetter(
      parse('{"method":"subscription","params":{"channel":"trades.perp.BTC","data":[{"instrument_name":"BTC-PERP"}]}}', ctxFor('derive')),
      /trade missing/,
    );
    assertDeadLetter(
      parse(
        '{"method":"subscription","params":{"channel":"trades.perp.BTC","data":[{"trade_id":"1","instrument_name":"BTC-X-Y","timestamp":1,"trade_price":"1","trade_amount":"1","direction":"buy"}]}}',
        ctxFor('derive'),
      ),
      /unparseable/,
    );
    assertDeadLetter(
      parse('{"method":"subscription","params":{"channel":"ticker_slim.BTC-PERP.1000","data":{"timestamp":1}}}', ctxFor('derive')),
      /instrument_ticker/,
    );
    assertDeadLetter(parse('[1]', ctxFor('derive')), /not a JSON object/);
    assertDeadLetter(parse('{"foo":1}', ctxFor('derive')), /unknown message/);
  });
});
