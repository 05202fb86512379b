import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { registerInstruments } from '../../connector/context.ts';
import { fixtureLine, fixtureLines, fixtureText } from '../fixtures/load.ts';
import { assertDeadLetter, assertIgnored, ctxFor, first, only, RECEIVED_AT } from '../testing/run-parser.ts';
import type { ParserContext } from '../../connector/types.ts';
import { okxConnector } from './index.ts';
import { parseOkxInstruments } from './instruments.ts';
import { assertOnePassBurst, assertSamePaths, frameVariants, jsonParseCalls } from '../testing/fast-path.ts';
import type { Json, JsonObject } from '../testing/fast-path.ts';
import { parseOkxFrame, parseOkxFrameJson } from './parse.ts';

const parse = okxConnector.parse;

function listedCtx(): ParserContext {
  const ctx = ctxFor('okx');
  for (const f of ['okx/instruments_option.json', 'okx/instruments_swap.json']) {
    const r = parseOkxInstruments(fixtureText(f), RECEIVED_AT);
    assert.ok(r.ok);
    registerInstruments(ctx, r.events);
  }
  return ctx;
}

describe('okx option trades', () => {
  test('option-trades (docs example): contracts × ctMult × ctVal, BTC price × idxPx, fillVol fraction, fwdPx', () => {
    const t = first(parse(fixtureLine('okx/docs.jsonl', 'option-trades'), listedCtx()), 'option_trade');
    assert.deepEqual(t, {
      venue: 'okx',
      symbol: 'BTCUSDT',
      ts: 1672286551080,
      receivedAt: RECEIVED_AT,
      id: 'okx:BTC-USD-230224-18000-C:38',
      instrument: 'BTC-USD-230224-18000-C',
      tradeId: '38',
      side: 'sell',
      strike: 18000,
      expiry: Date.UTC(2023, 1, 24, 8),
      optionType: 'call',
      price: 0.045,
      priceCurrency: 'BTC',
      priceUsd: 744.174, // 0.045 × 16537.2
      size: 0.02, // 2 × 0.01 × 1
      premiumUsd: 14.88348, // 744.174 × 0.02
      iv: 0.5066007836914062,
      indexPrice: 16537.2,
      underlyingPrice: 16469.69928595038,
      block: false,
    });
  });

  test('plain trades channel on an option: USD via the latest index-tickers BTC-USD', () => {
    const ctx = listedCtx();
    const line = fixtureLine('okx/tardis_options.jsonl', '"channel":"trades"');
    assertDeadLetter(parse(line, ctx), /no index price/);
    first(parse(fixtureLine('okx/derived.jsonl', 'index-tickers'), ctx), 'index');
    const t = first(parse(line, ctx), 'option_trade');
    assert.equal(t.size, 0.01);
    assert.equal(t.priceUsd, 23.35615); // 0.0005 × 46712.3
    assert.equal(t.premiumUsd, 0.2335615);
    assert.equal(t.indexPrice, null); // not in this message
  });

  test('an option that is not in the listing is a dead letter (contract value unknown)', () => {
    assertDeadLetter(parse(fixtureLine('okx/docs.jsonl', 'option-trades'), ctxFor('okx')), /not in listing/);
  });
});

describe('okx option tickers', () => {
  test('opt-summary: BS greeks, vols as fractions, empty bidVol -> null; other fields null', () => {
    const [a, b] = only(parse(fixtureLine('okx/tardis_options.jsonl', 'ETH-USD-211222-4000-C'), listedCtx()), 'option_ticker');
    assert.deepEqual(a, {
      venue: 'okx',
      symbol: 'ETHUSDT',
      ts: 1640001659301,
      receivedAt: RECEIVED_AT,
      id: 'okx:opt_summary:ETH-USD-211222-4000-C:1640001659301',
      instrument: 'ETH-USD-211222-4000-C',
      strike: 4000,
      expiry: Date.UTC(2021, 11, 22, 8),
      optionType: 'call',
      markPrice: null,
      markIv: 0.7794507758,
      bidIv: 0.7421960156,
      askIv: 0.8203208593,
      delta: 0.2038286081,
      gamma: 0.0013437829,
      vega: 0.7647227087,
      theta: -16.4798150221,
      openInterest: null,
      underlyingPrice: null,
      indexPrice: null,
      priceCurrency: null,
      bidPrice: null,
      askPrice: null,
      bidPriceUsd: null,
      askPriceUsd: null,
      bidSize: null,
      askSize: null,
      lastPrice: null,
      lastPriceUsd: null,
      volume24h: null,
    });
    assert.equal(b?.bidIv, null);
    assert.equal(b?.askIv, 1.9531310937);
  });

  test('tickers on an option: ask in ETH and contracts × 0.1 ETH, empty bid -> null, last, volCcy24h; USD via the index', () => {
    const ctx = listedCtx();
    ctx.indexPrices.set('ETHUSDT', 3814.05); // the index-tickers ETH-USD push of the same recording
    const t = first(parse(fixtureLine('okx/tardis_options.jsonl', '"channel":"tickers"'), ctx), 'option_ticker');
    assert.deepEqual(
      [
        t.id,
        t.priceCurrency,
        t.bidPrice,
        t.bidSize,
        t.bidPriceUsd,
        t.askPrice,
        t.askSize,
        t.askPriceUsd,
        t.lastPrice,
        t.lastPriceUsd,
        t.volume24h,
        t.markIv,
        t.delta,
      ],
      // ask 0.0005 × 3814.05 = 1.907025; 111 contracts × 0.1 = 11.1 ETH; last 0.006 × 3814.05 = 22.8843
      ['okx:tickers:ETH-USD-211231-9600-C:1640001603301', 'ETH', null, null, null, 0.0005, 11.1, 1.907025, 0.006, 22.8843, 0, null, null],
    );
  });

  test('tickers on a swap are not read (perp stats come from their own channels)', () => {
    assertIgnored(parse(fixtureLine('okx/tardis_swap.jsonl', '"channel":"tickers"'), listedCtx()), 'untracked');
  });

  test('open-interest on an option: oiCcy coins', () => {
    const t = first(parse(fixtureLine('okx/tardis_options.jsonl', '"channel":"open-interest"'), listedCtx()), 'option_ticker');
    assert.equal(t.openInterest, 3.6); // 36 contracts × 0.1
    assert.equal(t.markIv, null);
    assert.equal(t.ts, 1640183217591);
  });

  test('index-tickers -> index event', () => {
    const e = first(parse(fixtureLine('okx/tardis_options.jsonl', 'index-tickers'), listedCtx()), 'index');
    assert.deepEqual(e, {
      venue: 'okx',
      symbol: 'ETHUSDT',
      ts: 1640001659508,
      receivedAt: RECEIVED_AT,
      id: 'okx:index:ETH-USD:1640001659508',
      kind: 'index',
      name: 'ETH-USD',
      value: 3814.05,
    });
  });
});

describe('okx perps and spot', () => {
  test('swap trade: 5 contracts × ctVal 0.01 BTC = 0.05 BTC', () => {
    const t = first(parse(fixtureLine('okx/tardis_swap.jsonl', 'BTC-USDT-SWAP","tradeId'), listedCtx()), 'perp_trade');
    assert.deepEqual(t, {
      venue: 'okx',
      symbol: 'BTCUSDT',
      ts: 1640131236050,
      receivedAt: RECEIVED_AT,
      id: 'okx:BTC-USDT-SWAP:148266905',
      instrument: 'BTC-USDT-SWAP',
      tradeId: '148266905',
      side: 'buy',
      market: 'perp',
      price: 48938.5,
      size: 0.05,
    });
  });

  test('funding-rate and open-interest rows (each only its own fields)', () => {
    const ctx = listedCtx();
    const f = first(parse(fixtureLine('okx/derived.jsonl', 'funding-rate'), ctx), 'perp_stats');
    assert.deepEqual(
      [f.fundingRate, f.nextFundingTime, f.ts, f.openInterest, f.markPrice],
      [0.00010812, 1640131200000, 1640131100000, null, null],
    );
    const o = first(parse(fixtureLine('okx/derived.jsonl', '"channel":"open-interest"'), ctx), 'perp_stats');
    assert.deepEqual([o.openInterest, o.openInterestUsd, o.fundingRate], [25234.56, 1234567890.12, null]);
  });

  test('liquidation-orders: posSide is the liquidated position; net mode: buy closes a short', () => {
    const [a, b] = only(parse(fixtureLine('okx/derived.jsonl', 'liquidation-orders'), listedCtx()), 'liquidation');
    assert.deepEqual(a, {
      venue: 'okx',
      symbol: 'BTCUSDT',
      ts: 1680173247614,
      receivedAt: RECEIVED_AT,
      id: 'okx:liq:BTC-USDT-SWAP:1680173247614:long:28123.4:25',
      instrument: 'BTC-USDT-SWAP',
      side: 'long',
      price: 28123.4,
      size: 0.25,
    });
    assert.equal(b?.side, 'short');
    assert.equal(b?.size, 0.03);
    assertIgnored(parse(fixtureLine('okx/tardis_futures.jsonl', 'liquidation-orders'), listedCtx()), 'untracked');
  });

  test('spot trades (cryptofeed) are already in coins', () => {
    const t = first(parse(fixtureLine('okx/cryptofeed.jsonl', '338476307'), ctxFor('okx')), 'spot_trade');
    assert.equal(t.size, 0.0002);
    assert.equal(t.price, 30236);
    assert.equal(t.market, 'spot');
  });

  test('untracked coins ignored', () => {
    assertIgnored(parse(fixtureLine('okx/tardis_swap.jsonl', 'WNCG-USDT-SWAP"},"data":[{"fundingRate'), listedCtx()), 'untracked');
    assertIgnored(parse(fixtureLine('okx/tardis_spot.jsonl', 'CRV-USDT'), listedCtx()), 'untracked');
  });
});

describe('okx control, unknown and broken frames', () => {
  test('pong, subscribe ack, error event', () => {
    assertIgnored(parse('pong', ctxFor('okx')), 'pong');
    assertIgnored(parse(fixtureLine('okx/cryptofeed.jsonl', '"event":"subscribe"'), ctxFor('okx')), 'ack');
    assertIgnored(parse(fixtureLine('okx/docs.jsonl', '"event":"error"'), ctxFor('okx')), 'venue_error');
  });

  test('unsubscribed channels, truncated and malformed frames -> dead letters', () => {
    assertDeadLetter(parse(fixtureLine('okx/tardis_swap.jsonl', 'bbo-tbt'), listedCtx()), /unknown channel: bbo-tbt/);
    assertDeadLetter(
      parse(fixtureLine('okx/tardis_futures.jsonl', '"channel":"liquidations"'), listedCtx()),
      /unknown channel: liquidations/,
    );
    assertDeadLetter(parse(fixtureLine('okx/tardis_swap.jsonl', 'BTC-USDT-SWAP","tradeId'), ctxFor('okx')), /not in listing/);
    assertDeadLetter(parse('{"arg":{"channel":"trades","instId":"BTC-USDT-SWAP"},"data":[{"instId":"BTC', ctxFor('okx')), /malformed json/);
    assertDeadLetter(parse('{"arg":{"channel":"trades"},"data":{}}', ctxFor('okx')), /data array/);
    assertDeadLetter(parse('{"arg":{"channel":"trades"},"data":[{"instId":"BTC-USDT","px":"1"}]}', ctxFor('okx')), /trade missing/);
    assertDeadLetter(parse('"x"', ctxFor('okx')), /not a JSON object/);
  });
});

describe('okx instruments and subscriptions', () => {
  test('listing: contractSize = ctVal × ctMult; inverse swaps and untracked coins skipped', () => {
    const ctx = listedCtx();
    assert.equal(ctx.instruments.get('ETH-USD-211231-9600-C')?.contractSize, 0.1);
    assert.equal(ctx.instruments.get('BTC-USDT-SWAP')?.contractSize, 0.01);
    assert.equal(ctx.instruments.has('BTC-USD-SWAP'), false);
    assert.equal(ctx.instruments.has('WNCG-USDT-SWAP'), false);
    const missing = parseOkxInstruments('{"code":"51001","msg":"Instrument ID does not exist","data":[]}', 1);
    assert.deepEqual(missing, { ok: true, events: [], nextUrl: null });
  });

  test('connections and pollers from the listing', () => {
    const plans = okxConnector.connections(['BTCUSDT'], [...listedCtx().instruments.values()]);
    assert.equal(plans.length, 1);
    const args = (JSON.parse(plans[0]?.subscribeFrames[0] ?? '') as { args: unknown[] }).args;
    assert.deepEqual(args, [
      { channel: 'option-trades', instType: 'OPTION', instFamily: 'BTC-USD' },
      { channel: 'opt-summary', instFamily: 'BTC-USD' },
      { channel: 'tickers', instId: 'BTC-USD-211224-56000-C' },
      { channel: 'tickers', instId: 'BTC-USD-230224-18000-C' },
      { channel: 'trades', instId: 'BTC-USDT-SWAP' },
      { channel: 'funding-rate', instId: 'BTC-USDT-SWAP' },
      { channel: 'open-interest', instId: 'BTC-USDT-SWAP' },
      { channel: 'mark-price', instId: 'BTC-USDT-SWAP' },
      { channel: 'liquidation-orders', instType: 'SWAP' },
      { channel: 'index-tickers', instId: 'BTC-USD' },
      { channel: 'index-tickers', instId: 'BTC-USDT' },
    ]);
    assert.deepEqual(plans[0]?.heartbeat, { kind: 'app_ping', intervalMs: 20000, payload: 'ping' });
    assert.deepEqual(
      okxConnector.pollers(['BTCUSDT'], [...listedCtx().instruments.values()]).map((p) => p.url),
      ['https://www.okx.com/api/v5/public/open-interest?instType=OPTION&instFamily=BTC-USD'],
    );
  });
});

describe('okx trade pushes read without JSON.parse', () => {
  const files = ['cryptofeed', 'derived', 'docs', 'tardis_futures', 'tardis_options', 'tardis_spot', 'tardis_swap'];
  const lines = files.flatMap((f) => fixtureLines(`okx/${f}.jsonl`));
  const tradesOf = (msg: JsonObject): Json[] | undefined => {
    const data = msg['data'];
    return Array.isArray(data) ? data : undefined;
  };
  const swap = fixtureLine('okx/tardis_swap.jsonl', 'BTC-USDT-SWAP","tradeId');
  const option = fixtureLine('okx/docs.jsonl', 'option-trades');
  /** Frames around the push's own members: arg repeated or not an object, an event beside the data, other channels. */
  const pushVariants = [
    swap.replace('{"arg":{', '{"arg":{"channel":"tickers"},"arg":{'),
    swap.replace('{"arg":{', '{"arg":{"instId":"BTC-USDT-SWAP"},"arg":{').replace('"channel":"trades",', ''),
    swap.replace('{"arg":{"channel":"trades","instId":"BTC-USDT-SWAP"}', '{"arg":"trades"'),
    swap.replace('{"arg":{"channel":"trades","instId":"BTC-USDT-SWAP"}', '{"arg":{"channel":"trades","x":[1]}'),
    swap.replace('{"arg":{', '{"event":"subscribe","arg":{'),
    swap.replace('{"arg":{', '{"event":7,"arg":{'),
    swap.replace('{"arg":{', '{"event":{"a":1},"arg":{'),
    swap.replace('"channel":"trades"', '"channel":"trades-all"'),
    swap.replace('"channel":"trades"', '"channel":"tickers"'),
    swap.replace('"channel":"trades"', '"channel":"trade"'),
    swap.replace('"channel":"trades"', '"channel":7'),
    swap.replace('"data":[', '"data":[7,'),
    swap.replace('"data":[', '"data":[],"data":['),
    `${swap.slice(0, -1)},"data":[]}`,
    swap.replace(/"data":\[.*\]/, '"data":{}'),
    option.replace('"channel":"option-trades"', '"channel":"opt-summary"'),
    'pong',
    '',
    '{}',
    '[]',
  ];

  test('every fixture frame and its variants, with and without the listing: the same result and state', () => {
    const frames = [...lines, ...pushVariants].flatMap((l) => frameVariants(l, tradesOf));
    assert.ok(frames.length > 500, `${frames.length} frames`);
    assertSamePaths(frames, parseOkxFrame, parseOkxFrameJson, listedCtx);
    assertSamePaths(frames, parseOkxFrame, parseOkxFrameJson, () => ctxFor('okx'));
  });

  test('recorded trade pushes take the one-pass path (no JSON.parse call), a ticker push does not', () => {
    const pushes = lines.filter((l) => /^\{"arg":\{"channel":"(trades|option-trades)"/.test(l));
    assert.ok(pushes.length >= 5, `${pushes.length} pushes`);
    const ctx = listedCtx();
    assert.equal(
      jsonParseCalls(() => pushes.forEach((l) => assert.notEqual(parseOkxFrame(l, ctx).outcome, 'dead_letter', l))),
      0,
    );
    assert.equal(
      jsonParseCalls(() => parseOkxFrame(fixtureLine('okx/tardis_options.jsonl', 'opt-summary'), ctx)),
      1,
    );
  });

  test('a burst of 400 trades in one push (~100 KiB) takes the one-pass path and gives what the JSON.parse path gives', () => {
    const push = JSON.parse(fixtureLine('okx/docs.jsonl', 'option-trades')) as JsonObject;
    const [trade] = push['data'] as JsonObject[];
    const data = Array.from({ length: 400 }, (_, i) => ({ ...trade, tradeId: String(1000 + i), sz: String(1 + (i % 7)) }));
    const burst = JSON.stringify({ ...push, data });
    assert.ok(burst.length > 96 * 1024, `${burst.length} characters`);
    assertOnePassBurst(burst, 400, parseOkxFrame, parseOkxFrameJson, listedCtx);
  });
});
