import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureLine, fixtureLines } from '../fixtures/load.ts';
import { assertDeadLetter, assertIgnored, ctxFor, first, only, RECEIVED_AT } from '../testing/run-parser.ts';
import { bybitConnector } from './index.ts';
import { assertSamePaths, frameVariants, jsonParseCalls } from '../testing/fast-path.ts';
import type { Json, JsonObject } from '../testing/fast-path.ts';
import { parseBybitFrame, parseBybitFrameJson } from './parse.ts';

const parse = bybitConnector.parse;
const V5 = 'bybit/tardis_v5.jsonl';
const OPT = 'bybit/tardis_options.jsonl';

describe('bybit option trades (publicTrade.<baseCoin>)', () => {
  test('real 2023 option trade: USDC price, size in coins, S = taker side', () => {
    const t = first(parse(fixtureLine(OPT, 'publicTrade.BTC'), ctxFor('bybit', 'option-0')), 'option_trade');
    assert.deepEqual(t, {
      venue: 'bybit',
      symbol: 'BTCUSDT',
      ts: 1680652922081,
      receivedAt: RECEIVED_AT,
      id: 'bybit:BTC-28APR23-29500-C:0404c393-8419-5bac-95c3-5fea28404754',
      instrument: 'BTC-28APR23-29500-C',
      tradeId: '0404c393-8419-5bac-95c3-5fea28404754',
      strike: 29500,
      expiry: Date.UTC(2023, 3, 28, 8),
      optionType: 'call',
      price: 985,
      priceCurrency: 'USDC',
      priceUsd: 985,
      size: 0.01,
      premiumUsd: 9.85, // 985 × 0.01
      side: 'sell',
      iv: null, // not published in 2023 messages
      indexPrice: null,
      underlyingPrice: null,
      block: false,
    });
  });

  test('current fields (iv, iP, BT) and USDT-settled -USDT options', () => {
    const [a, b] = only(parse(fixtureLine('bybit/derived.jsonl', 'publicTrade.BTC'), ctxFor('bybit', 'option-0')), 'option_trade');
    assert.equal(a?.iv, 0.4538);
    assert.equal(a?.indexPrice, 81982.3);
    assert.equal(a?.block, true);
    assert.equal(a?.premiumUsd, 1355); // 2710 × 0.5
    assert.equal(b?.symbol, 'ETHUSDT');
    assert.equal(b?.priceCurrency, 'USDT');
    assert.equal(b?.strike, 7000);
    assert.equal(b?.optionType, 'put');
    assert.equal(b?.expiry, Date.UTC(2027, 5, 25, 8));
    assert.equal(b?.premiumUsd, 10251); // 5125.5 × 2
  });
});

describe('bybit option tickers', () => {
  test('real ticker: IVs are fractions, OI in coins, greeks as published', () => {
    const t = first(parse(fixtureLine(OPT, 'tickers.SOL-28APR23-24-C'), ctxFor('bybit', 'option-0')), 'option_ticker');
    assert.deepEqual(t, {
      venue: 'bybit',
      symbol: 'SOLUSDT',
      ts: 1680652810254,
      receivedAt: RECEIVED_AT,
      id: 'bybit:option_ticker:SOL-28APR23-24-C:1680652810254',
      instrument: 'SOL-28APR23-24-C',
      strike: 24,
      expiry: Date.UTC(2023, 3, 28, 8),
      optionType: 'call',
      markPrice: 1.99054639,
      markIv: 1.4674,
      bidIv: 0.6004,
      askIv: 2.0007,
      delta: 0.42723543,
      gamma: 0.0505193,
      vega: 0.02075941,
      theta: -0.06527514,
      openInterest: 20,
      underlyingPrice: 20.93,
      indexPrice: 20.93,
      priceCurrency: 'USDC',
      bidPrice: 0.34,
      askPrice: 3.11,
      bidPriceUsd: 0.34, // USDC quote: USD as is
      askPriceUsd: 3.11,
      bidSize: 10, // contracts × 1 SOL
      askSize: 51,
      lastPrice: 1.6,
      lastPriceUsd: 1.6,
      volume24h: 10,
    });
  });

  test('ask 0 / askIv 0 means no ask: null', () => {
    const t = first(parse(fixtureLine(OPT, 'tickers.ETH-30JUN23-200-P'), ctxFor('bybit', 'option-0')), 'option_ticker');
    assert.equal(t.askIv, null);
    assert.deepEqual(
      [t.askPrice, t.askSize, t.askPriceUsd, t.bidPrice, t.bidSize, t.lastPrice, t.volume24h],
      [null, null, null, 0.1, 5, 1, 0],
    );
    assert.equal(t.bidIv, 1.4744);
    assert.equal(t.openInterest, 231.5);
    assert.equal(t.underlyingPrice, 1886.16);
  });
});

describe('bybit linear perps', () => {
  test('publicTrade.BTCUSDT on the linear connection -> perp trade', () => {
    const t = first(parse(fixtureLine('bybit/docs.jsonl', 'publicTrade.BTCUSDT'), ctxFor('bybit', 'linear')), 'perp_trade');
    assert.deepEqual(t, {
      venue: 'bybit',
      symbol: 'BTCUSDT',
      ts: 1672304486865,
      receivedAt: RECEIVED_AT,
      id: 'bybit:BTCUSDT:20f43950-d8dd-5b31-9112-a178eb6023af',
      instrument: 'BTCUSDT',
      tradeId: '20f43950-d8dd-5b31-9112-a178eb6023af',
      market: 'perp',
      price: 16578.5,
      size: 0.001,
      side: 'buy',
    });
  });

  test('tickers snapshot then delta: merged state, OI coins + USD, funding, next funding', () => {
    const ctx = ctxFor('bybit', 'linear');
    const s = first(parse(fixtureLine(V5, 'tickers.BTCUSDT'), ctx), 'perp_stats');
    assert.deepEqual(s, {
      venue: 'bybit',
      symbol: 'BTCUSDT',
      ts: 1680673821770,
      receivedAt: RECEIVED_AT,
      id: 'bybit:perp_stats:BTCUSDT:1680673821770',
      instrument: 'BTCUSDT',
      openInterest: 52774.528,
      openInterestUsd: 1506861070.82,
      fundingRate: 0.0001,
      nextFundingTime: 1680681600000,
      markPrice: 28552.81,
      indexPrice: 28562.25,
    });
    const d = first(parse(fixtureLine('bybit/derived.jsonl', 'tickers.BTCUSDT'), ctx), 'perp_stats');
    assert.equal(d.ts, 1680673821870);
    assert.equal(d.openInterest, 52780.001); // from the delta
    assert.equal(d.fundingRate, 0.000095); // from the delta
    assert.equal(d.markPrice, 28552.81); // unchanged field, still current per the snapshot+delta protocol
    assert.equal(d.openInterestUsd, 1506861070.82);
  });

  test('inverse (BTCUSD), dated futures and untracked coins are ignored', () => {
    const ctx = ctxFor('bybit', 'linear');
    assertIgnored(parse(fixtureLine(V5, '"topic":"tickers.BTCUSD"'), ctx), 'untracked');
    assertIgnored(parse(fixtureLine(V5, '"topic":"tickers.BTCUSDU23"'), ctx), 'untracked');
    assertIgnored(parse(fixtureLine(V5, 'publicTrade.LTCUSDT'), ctx), 'untracked');
    assertIgnored(parse(fixtureLine(V5, 'publicTrade.BTCUSD"'), ctx), 'untracked');
    assertIgnored(parse(fixtureLine(V5, 'allLiquidation.PIPPINUSDT'), ctx), 'untracked');
  });

  test('allLiquidation: S=Buy -> long liquidated, S=Sell -> short', () => {
    const [a, b] = only(parse(fixtureLine('bybit/derived.jsonl', 'allLiquidation.BTCUSDT'), ctxFor('bybit', 'linear')), 'liquidation');
    assert.deepEqual(a, {
      venue: 'bybit',
      symbol: 'BTCUSDT',
      ts: 1740480207110,
      receivedAt: RECEIVED_AT,
      id: 'bybit:liq:BTCUSDT:1740480207110:long:91234.5:0.25',
      instrument: 'BTCUSDT',
      side: 'long',
      price: 91234.5,
      size: 0.25,
    });
    assert.equal(b?.side, 'short');
  });
});

describe('bybit spot', () => {
  test('publicTrade.BTCUSDT on the spot connection -> spot trade', () => {
    const list = only(parse(fixtureLine('bybit/tardis_spot_v5.jsonl', 'publicTrade.BTCUSDT'), ctxFor('bybit', 'spot')), 'spot_trade');
    assert.ok(list.length > 1);
    assert.deepEqual(list[0], {
      venue: 'bybit',
      symbol: 'BTCUSDT',
      ts: 1680652847524,
      receivedAt: RECEIVED_AT,
      id: 'bybit:BTCUSDT:2290000000050703789',
      instrument: 'BTCUSDT',
      tradeId: '2290000000050703789',
      market: 'spot',
      price: 28165.38,
      size: 0.041732,
      side: 'sell',
    });
    const usdc = first(parse(fixtureLine('bybit/tardis_spot_v5.jsonl', 'publicTrade.BTCUSDC'), ctxFor('bybit', 'spot')), 'spot_trade');
    assert.equal(usdc.symbol, 'BTCUSDT'); // BTC against a USD stablecoin
    assert.equal(usdc.instrument, 'BTCUSDC');
  });
});

describe('bybit control, unknown and broken frames', () => {
  test('pongs (option and linear shapes), subscribe ack, subscribe failure', () => {
    const ctx = ctxFor('bybit', 'option-0');
    assertIgnored(parse(fixtureLine('bybit/docs.jsonl', '"op":"pong"'), ctx), 'pong');
    assertIgnored(parse(fixtureLine('bybit/docs.jsonl', '"ret_msg":"pong"'), ctx), 'pong');
    assertIgnored(parse(fixtureLine('bybit/docs.jsonl', '"success":true,"ret_msg":""'), ctx), 'ack');
    assertIgnored(parse(fixtureLine('bybit/docs.jsonl', '"success":false'), ctx), 'venue_error');
  });

  test('orderbook topics (not subscribed) are dead letters; broken frames never throw', () => {
    assertDeadLetter(parse(fixtureLine(OPT, 'orderbook.25.SOL'), ctxFor('bybit', 'option-0')), /unknown topic: orderbook\.25/);
    const line = fixtureLine(OPT, 'tickers.SOL-28APR23-24-C');
    assertDeadLetter(parse(line.slice(0, 120), ctxFor('bybit', 'option-0')), /malformed json/);
    assertDeadLetter(parse('null', ctxFor('bybit')), /not a JSON object/);
    assertDeadLetter(parse('{"op":"weird"}', ctxFor('bybit')), /unknown message: weird/);
    assertDeadLetter(parse('{"topic":"publicTrade.BTC","data":[{"s":"BTC-28APR23-29500-C"}]}', ctxFor('bybit')), /trade missing/);
    assertDeadLetter(
      parse('{"topic":"publicTrade.BTC","data":[{"s":"???","i":"1","T":1,"p":"1","v":"1","S":"Buy"}]}', ctxFor('bybit')),
      /unparseable symbol/,
    );
    assertDeadLetter(parse('{"topic":"tickers.BTCUSDT","data":"x"}', ctxFor('bybit')), /not an object/);
  });
});

describe('bybit publicTrade frames read without JSON.parse', () => {
  const files = ['derived', 'docs', 'tardis_options', 'tardis_spot_v5', 'tardis_v5'];
  const lines = files.flatMap((f) => fixtureLines(`bybit/${f}.jsonl`));
  const tradesOf = (msg: JsonObject): Json[] | undefined => {
    const data = msg['data'];
    return Array.isArray(data) ? data : undefined;
  };

  test('every fixture frame and its variants, on option, linear and spot connections: the same result and state', () => {
    const frames = lines.flatMap((l) => frameVariants(l, tradesOf));
    assert.ok(frames.length > 500, `${frames.length} frames`);
    for (const connection of ['option-0', 'linear', 'spot']) {
      assertSamePaths(frames, parseBybitFrame, parseBybitFrameJson, () => ctxFor('bybit', connection));
    }
  });

  test('recorded publicTrade frames take the one-pass path (no JSON.parse call), a tickers frame does not', () => {
    const trades = lines.filter((l) => l.includes('"topic":"publicTrade.'));
    assert.ok(trades.length >= 5);
    const ctx = ctxFor('bybit', 'linear');
    assert.equal(
      jsonParseCalls(() => trades.forEach((l) => assert.notEqual(parseBybitFrame(l, ctx).outcome, 'dead_letter'))),
      0,
    );
    assert.equal(
      jsonParseCalls(() => parseBybitFrame(fixtureLine(OPT, 'tickers.SOL-28APR23-24-C'), ctx)),
      1,
    );
  });
});
