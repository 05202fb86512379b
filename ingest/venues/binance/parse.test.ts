import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureLine, fixtureLines, fixtureText } from '../fixtures/load.ts';
import { assertDeadLetter, assertIgnored, ctxFor, first, only, RECEIVED_AT } from '../testing/run-parser.ts';
import { binanceConnector, parseBinanceOpenInterest } from './index.ts';
import { parseBinanceOptionsInfo, parseBinancePerpsInfo } from './instruments.ts';
import { assertSamePaths, frameVariants, isObject, jsonParseCalls } from '../testing/fast-path.ts';
import type { Json, JsonObject } from '../testing/fast-path.ts';
import { parseBinanceFrame, parseBinanceFrameJson } from './parse.ts';

const parse = binanceConnector.parse;
const OPT = 'binance/tardis_options_v2.jsonl';
const FUT = 'binance/tardis_futures.jsonl';

describe('binance options', () => {
  test('optionTrade: USDT price, q × unit coins, m=false -> taker buy', () => {
    const t = first(parse(fixtureLine(OPT, 'btc-251219-89000-c@optionTrade'), ctxFor('binance', 'public-0')), 'option_trade');
    assert.deepEqual(t, {
      venue: 'binance',
      symbol: 'BTCUSDT',
      ts: 1765983420778,
      receivedAt: RECEIVED_AT,
      id: 'binance:BTC-251219-89000-C:200',
      instrument: 'BTC-251219-89000-C',
      tradeId: '200',
      side: 'buy',
      strike: 89000,
      expiry: Date.UTC(2025, 11, 19, 8),
      optionType: 'call',
      price: 1420,
      priceCurrency: 'USDT',
      priceUsd: 1420,
      size: 1.54,
      premiumUsd: 2186.8, // 1420 × 1.54
      iv: null,
      indexPrice: null,
      underlyingPrice: null,
      block: false,
    });
    const s = first(parse(fixtureLine(OPT, 'btc-251218-89000-p@optionTrade'), ctxFor('binance', 'public-0')), 'option_trade');
    assert.equal(s.side, 'sell');
    assert.equal(s.premiumUsd, 2340); // 600 × 3.9
  });

  test('optionMarkPrice: mark, IVs (fractions), greeks, index', () => {
    const t = first(parse(fixtureLine(OPT, 'btcusdt@optionMarkPrice'), ctxFor('binance', 'market-0')), 'option_ticker');
    assert.deepEqual(t, {
      venue: 'binance',
      symbol: 'BTCUSDT',
      ts: 1765983421000,
      receivedAt: RECEIVED_AT,
      id: 'binance:mark_price:BTC-251219-89000-C:1765983421000',
      instrument: 'BTC-251219-89000-C',
      strike: 89000,
      expiry: Date.UTC(2025, 11, 19, 8),
      optionType: 'call',
      markPrice: 1450.5,
      markIv: 0.86,
      bidIv: 0.85,
      askIv: 0.88,
      delta: 0.75,
      gamma: 0.002,
      vega: 0.15,
      theta: -0.05,
      openInterest: null,
      underlyingPrice: null,
      indexPrice: 104334.60217391,
      priceCurrency: 'USDT',
      bidPrice: 1440,
      askPrice: 1460,
      bidPriceUsd: 1440,
      askPriceUsd: 1460,
      bidSize: 5,
      askSize: 3.5, // bq/aq contracts × 1 BTC
      lastPrice: null,
      lastPriceUsd: null,
      volume24h: null,
    });
    assertIgnored(parse(fixtureLine(OPT, 'xrpusdt@optionMarkPrice'), ctxFor('binance', 'market-0')), 'untracked');
  });

  test('optionOpenInterest: contracts × unit (listing unit wins over the name fallback)', () => {
    const ctx = ctxFor('binance', 'market-0');
    const [a, b] = only(parse(fixtureLine(OPT, 'optionOpenInterest'), ctx), 'option_ticker');
    assert.equal(a?.openInterest, 123.45);
    assert.equal(b?.openInterest, 67.89);
    assert.equal(b?.optionType, 'put');
    assert.equal(a?.markIv, null);
  });

  test('index stream', () => {
    const e = first(parse(fixtureLine('binance/tardis_options_v1.jsonl', 'BTCUSDT@index'), ctxFor('binance', 'market-0')), 'index');
    assert.deepEqual(e, {
      venue: 'binance',
      symbol: 'BTCUSDT',
      ts: 1696118400040,
      receivedAt: RECEIVED_AT,
      id: 'binance:index:BTCUSDT:1696118400040',
      kind: 'index',
      name: 'BTCUSDT',
      value: 26963.13461538,
    });
  });
});

describe('binance perps', () => {
  test('aggTrade -> perp trade (m=false: taker bought)', () => {
    const t = first(parse(fixtureLine(FUT, 'btcusdt@aggTrade'), ctxFor('binance', 'market-0')), 'perp_trade');
    assert.deepEqual(t, {
      venue: 'binance',
      symbol: 'BTCUSDT',
      ts: 1568693103463,
      receivedAt: RECEIVED_AT,
      id: 'binance:BTCUSDT:181349-181349',
      instrument: 'BTCUSDT',
      tradeId: '181349-181349',
      side: 'buy',
      market: 'perp',
      price: 10223.74,
      size: 0.236,
    });
    assertIgnored(parse(fixtureLine('binance/cryptofeed.jsonl', 'aggTrade'), ctxFor('binance', 'market-0')), 'untracked'); // SUSHI
  });

  test('markPrice@1s -> perp stats (mark, index, funding, next funding); T=0 -> null', () => {
    const s = first(parse(fixtureLine(FUT, 'btcusdt@markPrice@1s'), ctxFor('binance', 'market-0')), 'perp_stats');
    assert.deepEqual(s, {
      venue: 'binance',
      symbol: 'BTCUSDT',
      ts: 1597536008000,
      receivedAt: RECEIVED_AT,
      id: 'binance:mark_price:BTCUSDT:1597536008000',
      instrument: 'BTCUSDT',
      openInterest: null,
      openInterestUsd: null,
      fundingRate: 0.0001564,
      nextFundingTime: 1597564800000,
      markPrice: 11857.56,
      indexPrice: 11851.86949091,
    });
    assert.equal(first(parse(fixtureLine(FUT, '"btcusdt@markPrice"'), ctxFor('binance', 'market-0')), 'perp_stats').indexPrice, null);
    assertIgnored(parse(fixtureLine(FUT, 'btcbusd_210129@markPrice@1s'), ctxFor('binance', 'market-0')), 'untracked');
  });

  test('forceOrder: S=BUY closes a short -> short liquidated; filled qty z, average price ap', () => {
    const l = first(parse(fixtureLine(FUT, 'forceOrder'), ctxFor('binance', 'market-0')), 'liquidation');
    assert.deepEqual(l, {
      venue: 'binance',
      symbol: 'BTCUSDT',
      ts: 1584059031421,
      receivedAt: RECEIVED_AT,
      id: 'binance:liq:BTCUSDT:1584059031421:short:4706.04:0.014',
      instrument: 'BTCUSDT',
      side: 'short',
      price: 4706.04,
      size: 0.014,
    });
  });

  test('REST open interest poll -> perp stats OI in coins', () => {
    const ctx = ctxFor('binance', 'rest');
    const r = parseBinanceOpenInterest(fixtureText('binance/openInterest.json'), ctx);
    assert.ok(r.ok);
    const e = r.events[0];
    assert.ok(e?.type === 'perp_stats');
    assert.equal(e.event.openInterest, 10659.509);
    assert.equal(e.event.ts, 1589437530011);
    assert.equal(e.event.openInterestUsd, null);
  });
});

describe('binance spot', () => {
  test('futures @trade: MARKET prints are perp trades; insurance-fund and ADL prints are dropped by rule (ignored as dropped)', () => {
    const insurance = fixtureLine(FUT, '"X":"INSURANCE_FUND"');
    assertIgnored(parse(insurance, ctxFor('binance', 'market-0')), 'dropped');
    const r = parse(insurance, ctxFor('binance', 'market-0'));
    assert.equal(r.outcome === 'ignored' ? r.control.detail : '', 'non-market futures trade (X=INSURANCE_FUND)');
    const adl = insurance.replace('"X":"INSURANCE_FUND"', '"X":"ADL"');
    assertIgnored(parse(adl, ctxFor('binance', 'market-0')), 'dropped');
    const market = first(parse(insurance.replace('"X":"INSURANCE_FUND"', '"X":"MARKET"'), ctxFor('binance', 'market-0')), 'perp_trade');
    assert.deepEqual([market.symbol, market.price, market.size, market.side], ['ETHUSDT', 2366.55, 0.07, 'sell']);
  });

  test('trade on the spot connection -> spot trade; m=true: taker sold', () => {
    const t = first(parse(fixtureLine('binance/docs.jsonl', 'btcusdt@trade'), ctxFor('binance', 'spot-0')), 'spot_trade');
    assert.deepEqual([t.side, t.size, t.price, t.id, t.market], ['sell', 0.001, 16578.5, 'binance:BTCUSDT:12345', 'spot']);
    assertIgnored(parse(fixtureLine('binance/tardis_spot.jsonl', 'bnbbtc@trade'), ctxFor('binance', 'spot-0')), 'untracked');
  });
});

describe('binance control, unknown and broken frames', () => {
  test('SUBSCRIBE ack and error reply', () => {
    assertIgnored(parse(fixtureLine('binance/docs.jsonl', '"result":null'), ctxFor('binance')), 'ack');
    assertIgnored(parse(fixtureLine('binance/docs.jsonl', '"error"'), ctxFor('binance')), 'venue_error');
  });

  test('unsubscribed streams and broken frames are dead letters', () => {
    assertDeadLetter(parse(fixtureLine(FUT, 'btcusdt@bookTicker'), ctxFor('binance')), /unknown event type: bookTicker/);
    assertDeadLetter(parse(fixtureLine(FUT, 'btcusdt@depthSnapshot'), ctxFor('binance')), /unknown event type: null/);
    assertDeadLetter(parse(fixtureLine(OPT, 'optionTicker'), ctxFor('binance')), /unknown event type: 24hrTicker/);
    assertDeadLetter(parse('{"stream":"btcusdt@aggTrade","data":{"e":"aggTrade","s":"BTCUSDT"', ctxFor('binance')), /malformed json/);
    assertDeadLetter(parse('{"stream":"btcusdt@aggTrade","data":{"e":"aggTrade","s":"BTCUSDT"}}', ctxFor('binance')), /trade missing/);
    assertDeadLetter(parse('42', ctxFor('binance')), /not a JSON object/);
  });
});

describe('binance listings and subscriptions', () => {
  test('eapi + fapi exchangeInfo; subscriptions split /public and /market', () => {
    const o = parseBinanceOptionsInfo(fixtureText('binance/exchangeInfo_eapi.json'), 1);
    const p = parseBinancePerpsInfo(fixtureText('binance/exchangeInfo_fapi.json'), 1);
    assert.ok(o.ok && p.ok);
    const all = [...o.events, ...p.events].flatMap((e) => (e.type === 'instrument' ? [e.event] : []));
    assert.deepEqual(
      all.map((i) => [i.instrument, i.kind, i.contractSize, i.expiry]),
      [
        ['BTC-251219-89000-C', 'option', 1, 1766131200000],
        ['BTCUSDT', 'perp', 1, null],
      ],
    );
    const plans = binanceConnector.connections(['BTCUSDT'], all);
    const streams = (i: number): string[] =>
      (plans[i]?.subscribeFrames ?? []).flatMap((f) => (JSON.parse(f) as { params: string[] }).params);
    assert.deepEqual(
      plans.map((x) => [x.id, x.url]),
      [
        ['public-0', 'wss://fstream.binance.com/public/stream'],
        ['market-0', 'wss://fstream.binance.com/market/stream'],
        ['spot-0', 'wss://stream.binance.com:9443/stream'],
      ],
    );
    assert.deepEqual(streams(0), ['btcusdt@optionTrade']);
    assert.deepEqual(streams(1), [
      'btcusdt@optionMarkPrice',
      'btcusdt@optionOpenInterest@251219',
      '!index@arr',
      'btcusdt@aggTrade',
      'btcusdt@markPrice@1s',
      'btcusdt@forceOrder',
    ]);
    assert.deepEqual(
      binanceConnector.pollers(['BTCUSDT'], all).map((x) => [x.url, x.intervalMs]),
      [['https://fapi.binance.com/fapi/v1/openInterest?symbol=BTCUSDT', 5000]],
    );
  });
});

describe('binance trade frames read without JSON.parse', () => {
  const files = ['cryptofeed', 'docs', 'tardis_futures', 'tardis_options_v1', 'tardis_options_v2', 'tardis_spot'];
  const lines = files.flatMap((f) => fixtureLines(`binance/${f}.jsonl`));
  /** The trade object of a combined-stream frame, as a one-element list whose element 0 is the frame's data. */
  const tradesOf = (msg: JsonObject): Json[] | undefined => {
    const data = msg['data'];
    if (!isObject(data)) return undefined;
    return new Proxy<Json[]>([data], {
      set: (target, key, value: Json) => {
        if (key === '0') msg['data'] = value;
        return Reflect.set(target, key, value);
      },
    });
  };
  const trade = fixtureLine(FUT, 'btcusdt@trade');
  /** Frames around the frame's own members: error / result / id beside the data, stream not a string, other events. */
  const ownMembers = [
    trade.replace('{"stream":', '{"error":{"code":1,"msg":"x"},"stream":'),
    trade.replace('{"stream":', '{"error":null,"stream":'),
    trade.replace('{"stream":', '{"result":null,"id":1,"stream":'),
    trade.replace('{"stream":', '{"result":null,"stream":'),
    trade.replace('"stream":"btcusdt@trade"', '"stream":7'),
    trade.replace('"stream":"btcusdt@trade",', ''),
    trade.replace('"stream":"btcusdt@trade"', '"stream":"btcusdt@markPrice"'),
    trade.replace('"e":"trade"', '"e":"aggTrade"'),
    trade.replace('"e":"trade"', '"e":"markPriceUpdate"'),
    trade.replace('"e":"trade"', '"e":"nope"'),
    trade.replace('"e":"trade",', ''),
    trade.replace('"m":false', '"m":false,"X":"ADL"'),
    trade.replace('"data":{', '"data":{"x":[1],'),
    trade.replace('"data":{', '"data":[{').replace(/\}\}$/, '}]}'),
    `${trade.slice(0, -1)},"data":{"e":"trade"}}`,
    `${trade.slice(0, -1)},"data":5}`,
    `[${trade.slice(trade.indexOf('"data":') + 7, -1)}]`,
  ];

  test('every fixture frame and its variants, on market, spot and option connections: the same result and state', () => {
    const frames = [...lines, ...ownMembers].flatMap((l) => frameVariants(l, tradesOf));
    assert.ok(frames.length > 500, `${frames.length} frames`);
    for (const connection of ['market-0', 'spot-0', 'public-0']) {
      assertSamePaths(frames, parseBinanceFrame, parseBinanceFrameJson, () => ctxFor('binance', connection));
    }
  });

  test('recorded trade, aggTrade and optionTrade frames take the one-pass path (no JSON.parse call), a mark price frame does not', () => {
    const trades = lines.filter((l) => /^\{"stream":"[^"]*@(trade|aggTrade|optionTrade)"/.test(l));
    assert.ok(trades.length >= 5, `${trades.length} frames`);
    const ctx = ctxFor('binance', 'market-0');
    assert.equal(
      jsonParseCalls(() => trades.forEach((l) => assert.notEqual(parseBinanceFrame(l, ctx).outcome, 'dead_letter', l))),
      0,
    );
    assert.equal(
      jsonParseCalls(() => parseBinanceFrame(fixtureLine(FUT, '@markPrice'), ctx)),
      1,
    );
  });
});
