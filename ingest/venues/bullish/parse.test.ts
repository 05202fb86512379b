/**
 * Bullish parser tests: tardis_*.jsonl are recorded frames (tardis-node test data, 2026-04; shapes real, some
 * values synthetic), derived.jsonl holds CONSTRUCTED option / perp trade updates, keepalive pong, ack and error
 * replies following the documented shapes (the venue's public WebSocket API documentation, ccxt bullish comments); markets.json is a
 * CONSTRUCTED /trading-api/v1/markets body with the documented fields.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { registerInstruments } from '../../connector/context.ts';
import { fixtureLine, fixtureText } from '../fixtures/load.ts';
import { assertDeadLetter, assertIgnored, ctxFor, first, RECEIVED_AT } from '../testing/run-parser.ts';
import type { ParserContext } from '../../connector/types.ts';
import { bullishConnector } from './index.ts';
import { parseBullishMarkets } from './instruments.ts';

const parse = bullishConnector.parse;

function listedCtx(): ParserContext {
  const ctx = ctxFor('bullish');
  const r = parseBullishMarkets(fixtureText('bullish/markets.json'), RECEIVED_AT);
  assert.ok(r.ok);
  registerInstruments(ctx, r.events);
  return ctx;
}

describe('bullish markets and subscriptions', () => {
  test('markets: options (expiryDatetime, strike, type) and perps; spot, futures and untracked skipped', () => {
    const ctx = listedCtx();
    assert.deepEqual([...ctx.instruments.keys()], ['BTC-USDC-PERP', 'BTC-USDC-20260425-70000-C', 'BTC-USDC-20260515-150000-C']);
    assert.deepEqual(ctx.instruments.get('BTC-USDC-20260425-70000-C'), {
      venue: 'bullish',
      symbol: 'BTCUSDT',
      ts: RECEIVED_AT,
      receivedAt: RECEIVED_AT,
      id: 'bullish:instrument:BTC-USDC-20260425-70000-C',
      instrument: 'BTC-USDC-20260425-70000-C',
      kind: 'option',
      strike: 70000,
      expiry: Date.UTC(2026, 3, 25, 8),
      optionType: 'call',
      contractSize: 1,
      settlementCurrency: 'USDC',
      quoteCurrency: 'USDC',
      active: true,
    });
    assert.equal(parseBullishMarkets('{"errorCode":1}', 1).ok, false);
  });

  test('connections: index / trades / tick paths, one subscribe per symbol, keepalivePing', () => {
    const plans = bullishConnector.connections(['BTCUSDT'], [...listedCtx().instruments.values()]);
    assert.deepEqual(
      plans.map((p) => p.url),
      [
        'wss://api.exchange.bullish.com/trading-api/v1/index-data',
        'wss://api.exchange.bullish.com/trading-api/v1/market-data/trades',
        'wss://api.exchange.bullish.com/trading-api/v1/market-data/tick',
      ],
    );
    assert.deepEqual(JSON.parse(plans[0]?.subscribeFrames[0] ?? ''), {
      jsonrpc: '2.0',
      type: 'command',
      method: 'subscribe',
      params: { topic: 'indexPrice', assetSymbol: 'BTC' },
      id: '100',
    });
    assert.deepEqual(JSON.parse(plans[1]?.subscribeFrames[1] ?? ''), {
      jsonrpc: '2.0',
      type: 'command',
      method: 'subscribe',
      params: { topic: 'anonymousTrades', symbol: 'BTC-USDC-20260425-70000-C' },
      id: '101',
    });
    assert.equal(plans[2]?.subscribeFrames.length, 3);
    assert.deepEqual(plans[0]?.heartbeat, {
      kind: 'app_ping',
      intervalMs: 30000,
      payload: '{"jsonrpc":"2.0","type":"command","method":"keepalivePing","params":{},"id":"0"}',
    });
  });
});

describe('bullish trades', () => {
  test('option trade: BUY with isTaker=false -> taker sold; ms string timestamp; latest index attached', () => {
    const ctx = listedCtx();
    parse(fixtureLine('bullish/tardis_option_summary.jsonl', 'V1TAIndexPrice'), ctx);
    const t = first(parse(fixtureLine('bullish/derived.jsonl', '"symbol":"BTC-USDC-20260425-70000-C"'), ctx), 'option_trade');
    assert.deepEqual(t, {
      venue: 'bullish',
      symbol: 'BTCUSDT',
      ts: 1777042735950,
      receivedAt: RECEIVED_AT,
      id: 'bullish:BTC-USDC-20260425-70000-C:100118000001462801',
      instrument: 'BTC-USDC-20260425-70000-C',
      tradeId: '100118000001462801',
      side: 'sell',
      price: 8130.5,
      size: 0.25,
      strike: 70000,
      expiry: Date.UTC(2026, 3, 25, 8),
      optionType: 'call',
      priceCurrency: 'USDC',
      priceUsd: 8130.5,
      premiumUsd: 2032.625,
      iv: null,
      indexPrice: 78032.25,
      underlyingPrice: null,
      block: false,
    });
  });

  test('perp trade with 19-digit ns timestamps -> ms (no float rounding); SELL taker', () => {
    const t = first(parse(fixtureLine('bullish/derived.jsonl', '"symbol":"BTC-USDC-PERP"'), listedCtx()), 'perp_trade');
    assert.deepEqual([t.ts, t.side, t.size, t.price, t.market], [1745457580258, 'sell', 0.0042, 66250.5, 'perp']);
  });

  test('recorded frames: snapshot backfill skipped, spot BTCUSD and AAVE not tracked, heartbeat', () => {
    assertIgnored(parse(fixtureLine('bullish/tardis_trades.jsonl', '"type":"snapshot"'), listedCtx()), 'info');
    assertIgnored(
      parse(
        fixtureLine(
          'bullish/tardis_trades.jsonl',
          '"symbol":"BTCUSD","createdAtTimestamp":"1745457580300000000","publishedAtTimestamp":"1745457580301000000","trades":[{',
        ),
        listedCtx(),
      ),
      'untracked',
    );
    assertIgnored(parse(fixtureLine('bullish/tardis_trades.jsonl', 'V1TAHeartbeat'), listedCtx()), 'heartbeat');
  });
});

describe('bullish tickers and index (recorded)', () => {
  test('option ticker: markPrice, impliedVolatility fraction, greeks, OI coins', () => {
    const t = first(parse(fixtureLine('bullish/tardis_option_summary.jsonl', 'BTC-USDC-20260425-70000-C'), listedCtx()), 'option_ticker');
    assert.deepEqual(t, {
      venue: 'bullish',
      symbol: 'BTCUSDT',
      ts: 1777042732219,
      receivedAt: RECEIVED_AT,
      id: 'bullish:ticker:BTC-USDC-20260425-70000-C:1777042732219',
      instrument: 'BTC-USDC-20260425-70000-C',
      strike: 70000,
      expiry: Date.UTC(2026, 3, 25, 8),
      optionType: 'call',
      markPrice: 8133.6201,
      markIv: 0.7045,
      bidIv: null,
      askIv: null,
      delta: 0.9998113,
      gamma: 0.0000003,
      vega: 0.0247,
      theta: -93.2574,
      openInterest: 0,
      underlyingPrice: null,
      indexPrice: null,
      // empty book: no bestBid / bestAsk keys, askVolume null, last null; baseVolume "0.00000000"
      priceCurrency: 'USDC',
      bidPrice: null,
      askPrice: null,
      bidPriceUsd: null,
      askPriceUsd: null,
      bidSize: null,
      askSize: null,
      lastPrice: null,
      lastPriceUsd: null,
      volume24h: 0,
    });
  });

  test('perp ticker: fundingRate, openInterest coins + USD, mark; the index from V1TAIndexPrice', () => {
    const ctx = listedCtx();
    const i = first(parse(fixtureLine('bullish/tardis_derivative_ticker.jsonl', 'V1TAIndexPrice'), ctx), 'index');
    assert.deepEqual(i, {
      venue: 'bullish',
      symbol: 'BTCUSDT',
      ts: 1777042730000,
      receivedAt: RECEIVED_AT,
      id: 'bullish:index:BTC:1777042730000',
      kind: 'index',
      name: 'BTC',
      value: 78032.25,
    });
    const s = first(parse(fixtureLine('bullish/tardis_derivative_ticker.jsonl', 'BTC-USDC-PERP'), ctx), 'perp_stats');
    assert.deepEqual(
      [s.fundingRate, s.openInterest, s.openInterestUsd, s.markPrice, s.indexPrice, s.ts],
      [-0.001492, 647.17244459, 50507926.2656, 78035.395, 78032.25, 1777042734715],
    );
  });

  test('null-data ticker update and untracked / unlisted-spot tickers', () => {
    assertIgnored(parse(fixtureLine('bullish/tardis_derivative_ticker.jsonl', '"data":null'), listedCtx()), 'info');
    assertIgnored(parse(fixtureLine('bullish/tardis_derivative_ticker.jsonl', 'AAVEUSDC'), listedCtx()), 'untracked');
  });
});

describe('bullish control and broken frames', () => {
  test('keepalive pong, subscribe ack, error reply', () => {
    assertIgnored(parse(fixtureLine('bullish/derived.jsonl', 'Keep alive pong'), ctxFor('bullish')), 'pong');
    assertIgnored(parse(fixtureLine('bullish/derived.jsonl', 'Successfully subscribed'), ctxFor('bullish')), 'ack');
    assertIgnored(parse(fixtureLine('bullish/derived.jsonl', 'Invalid symbol'), ctxFor('bullish')), 'venue_error');
  });

  test('unknown dataType, truncated, malformed -> dead letters', () => {
    assertDeadLetter(
      parse(fixtureLine('bullish/tardis_trades.jsonl', 'V1TAHeartbeat').replace('V1TAHeartbeat', 'V1TALevel2'), listedCtx()),
      /unknown dataType: V1TALevel2/,
    );
    assertDeadLetter(parse(fixtureLine('bullish/derived.jsonl', 'BTC-USDC-PERP').slice(0, 100), listedCtx()), /malformed json/);
    assertDeadLetter(
      parse(
        '{"type":"update","dataType":"V1TAAnonymousTradeUpdate","data":{"trades":[{"symbol":"BTC-USDC-PERP","price":"1"}]}}',
        listedCtx(),
      ),
      /trade missing/,
    );
    assertDeadLetter(parse('{"type":"update","dataType":"V1TAAnonymousTradeUpdate","data":{}}', listedCtx()), /without trades array/);
    assertDeadLetter(parse('{"type":"update","dataType":"V1TAIndexPrice","data":{"price":"1"}}', listedCtx()), /index price missing/);
    assertDeadLetter(
      parse(
        '{"type":"update","dataType":"V1TATickerResponse","data":{"symbol":"BTC-USDC-BAD-X","createdAtTimestamp":"1777042734715"}}',
        listedCtx(),
      ),
      /unparseable instrument/,
    );
    assertDeadLetter(parse('{"a":1}', listedCtx()), /unknown message/);
  });
});
