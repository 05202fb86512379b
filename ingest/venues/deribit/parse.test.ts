import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixtureLine, fixtureLines } from '../fixtures/load.ts';
import { assertDeadLetter, assertIgnored, ctxFor, eventsOf, first, only, RECEIVED_AT } from '../testing/run-parser.ts';
import { deribitConnector } from './index.ts';
import { assertOnePassBurst, assertSamePaths, frameVariants, isObject, jsonParseCalls } from '../testing/fast-path.ts';
import type { Json, JsonObject } from '../testing/fast-path.ts';
import { parseDeribitFrame, parseDeribitFrameJson } from './parse.ts';

const parse = deribitConnector.parse;
const T = 'deribit/tardis.jsonl';

describe('deribit option trades', () => {
  test('real trade with iv (crypto-crawler-rs): BTC price -> USD via index_price, iv percent -> fraction', () => {
    const ctx = ctxFor('deribit');
    const t = first(parse(fixtureLine('deribit/crypto-crawler.jsonl', 'BTC-26MAR21-62000-C'), ctx), 'option_trade');
    assert.deepEqual(t, {
      venue: 'deribit',
      symbol: 'BTCUSDT',
      ts: 1616321732986,
      receivedAt: RECEIVED_AT,
      id: 'deribit:BTC-26MAR21-62000-C:137488100',
      instrument: 'BTC-26MAR21-62000-C',
      strike: 62000,
      expiry: Date.UTC(2021, 2, 26, 8),
      optionType: 'call',
      price: 0.007,
      priceCurrency: 'BTC',
      priceUsd: 393.06141, // 0.007 × 56151.63
      size: 0.1, // amount is coins for options
      premiumUsd: 39.306141, // 393.06141 × 0.1
      side: 'buy',
      iv: 0.7844, // 78.44 %
      indexPrice: 56151.63,
      underlyingPrice: null,
      tradeId: '137488100',
      block: false,
    });
    assert.equal(ctx.indexPrices.get('BTCUSDT'), 56151.63);
  });
});

describe('deribit perp trades and liquidations', () => {
  test('inverse perp amount (USD) -> coins = amount / price; direction is the taker side', () => {
    const trades = only(parse(fixtureLines(T)[0] ?? '', ctxFor('deribit')), 'perp_trade');
    assert.equal(trades.length, 2);
    assert.deepEqual(trades[0], {
      venue: 'deribit',
      symbol: 'BTCUSDT',
      ts: 1567296022565,
      receivedAt: RECEIVED_AT,
      id: 'deribit:BTC-PERPETUAL:39355898',
      market: 'perp',
      instrument: 'BTC-PERPETUAL',
      price: 9598.5,
      size: 0.208365890503725, // 2000 USD / 9598.5
      side: 'sell',
      tradeId: '39355898',
    });
    assert.equal(trades[1]?.size, 0.00520914726259311); // 50 / 9598.5
  });

  test('liquidation "T" on a taker sell = a long was liquidated', () => {
    const list = eventsOf(parse(fixtureLine(T, '"liquidation":"T"'), ctxFor('deribit')));
    assert.deepEqual(
      list.map((e) => e.type),
      ['perp_trade', 'liquidation'],
    );
    const liq = list[1];
    assert.ok(liq?.type === 'liquidation');
    assert.deepEqual(liq.event, {
      venue: 'deribit',
      symbol: 'BTCUSDT',
      ts: 1584058044032,
      receivedAt: RECEIVED_AT,
      id: 'deribit:liq:BTC-PERPETUAL:66460463:long',
      instrument: 'BTC-PERPETUAL',
      side: 'long',
      price: 4469.5,
      size: 0.250587314017228, // 1120 / 4469.5
    });
  });

  test('liquidation "M" on a taker buy = the maker sold = a long was liquidated', () => {
    const list = eventsOf(parse(fixtureLine(T, '"liquidation":"M"'), ctxFor('deribit')));
    const liq = list[1];
    assert.ok(liq?.type === 'liquidation');
    assert.equal(liq.event.side, 'long');
    assert.equal(liq.event.size, 0.56072670180554); // 2500 / 4458.5
  });
});

describe('deribit tickers', () => {
  test('option ticker: mark BTC -> USD, IVs percent -> fraction, greeks, OI in coins', () => {
    const t = first(parse(fixtureLine(T, 'ticker.BTC-5JUN20-9250-C'), ctxFor('deribit')), 'option_ticker');
    assert.deepEqual(t, {
      venue: 'deribit',
      symbol: 'BTCUSDT',
      ts: 1590969652595,
      receivedAt: RECEIVED_AT,
      instrument: 'BTC-5JUN20-9250-C',
      id: 'deribit:option_ticker:BTC-5JUN20-9250-C:1590969652595',
      strike: 9250,
      expiry: Date.UTC(2020, 5, 5, 8),
      optionType: 'call',
      markPrice: 363.0137945824, // 0.03847784 × 9434.36
      markIv: 0.6321,
      bidIv: 0.5839,
      askIv: 0.669,
      delta: 0.62959,
      gamma: 0.00058,
      vega: 3.88497,
      theta: -28.34113,
      openInterest: 533.2,
      underlyingPrice: 9440.73,
      indexPrice: 9434.36,
      priceCurrency: 'BTC',
      bidPrice: 0.0365,
      askPrice: 0.04,
      bidPriceUsd: 344.35414, // 0.0365 × 9434.36
      askPriceUsd: 377.3744, // 0.04 × 9434.36
      bidSize: 15.4, // best_bid_amount 15.4 contracts × 1 BTC
      askSize: 4.8,
      lastPrice: 0.038,
      lastPriceUsd: 358.50568, // 0.038 × 9434.36
      volume24h: 13.4, // stats.volume, contracts × 1 BTC
    });
  });

  test('option ticker of an expired contract: zero best bid/ask (empty book) -> null, last and volume kept', () => {
    const t = first(parse(fixtureLine(T, 'ticker.BTC-8JUN20-8750-P'), ctxFor('deribit')), 'option_ticker');
    assert.deepEqual(
      [t.bidPrice, t.askPrice, t.bidSize, t.askSize, t.bidPriceUsd, t.lastPrice, t.lastPriceUsd, t.volume24h],
      [null, null, null, null, null, 0.0005, 4.864625, 2.5], // 0.0005 × 9729.25
    );
    // The recorded frame says ask_iv 500 (Deribit's cap) with no ask at all: no quote, no IV.
    assert.match(fixtureLine(T, 'ticker.BTC-8JUN20-8750-P'), /"best_ask_price":0,"best_ask_amount":0,"ask_iv":500/);
    assert.deepEqual([t.bidIv, t.askIv, t.markIv], [null, null, 0.7]);
  });

  test('cryptofeed option tickers: zero bid/ask IV (no quote) -> null, not 0', () => {
    const ctx = ctxFor('deribit');
    const a = first(parse(fixtureLine('deribit/cryptofeed.jsonl', '"channel":"ticker.ETH-30JUL21-2800-C'), ctx), 'option_ticker');
    assert.equal(a.symbol, 'ETHUSDT');
    assert.equal(a.markPrice, 3.95725184); // 0.001972 × 2006.72
    assert.equal(a.markIv, 1.2074);
    assert.equal(a.bidIv, 1.1562);
    assert.equal(a.askIv, 1.2563);
    assert.equal(a.openInterest, 12685);
    assert.equal(a.underlyingPrice, 2003.61);
    const b = first(parse(fixtureLine('deribit/cryptofeed.jsonl', '"channel":"ticker.ETH-27AUG21-4000-P'), ctx), 'option_ticker');
    assert.equal(b.bidIv, null);
    assert.equal(b.askIv, null);
    assert.equal(b.markIv, 1.172);
    assert.equal(b.expiry, Date.UTC(2021, 7, 27, 8));
  });

  test('inverse perp ticker -> perp stats: OI USD and coins, funding_8h, mark, index', () => {
    const s = first(parse(fixtureLines(T)[4] ?? '', ctxFor('deribit')), 'perp_stats');
    assert.deepEqual(s, {
      venue: 'deribit',
      symbol: 'BTCUSDT',
      ts: 1564617604229,
      receivedAt: RECEIVED_AT,
      instrument: 'BTC-PERPETUAL',
      id: 'deribit:perp_stats:BTC-PERPETUAL:1564617604229',
      openInterest: 6551.18148225201, // 66128281 USD / 10094.1 mark
      openInterestUsd: 66128281,
      fundingRate: 0.00016281,
      nextFundingTime: null,
      markPrice: 10094.1,
      indexPrice: 10091.15,
    });
  });

  test('combos and untracked underlyings are ignored, not dead-lettered', () => {
    for (const needle of ['ticker.BTC-STRD-30SEP22-20000', 'ticker.BTC-FS-30SEP22_PERP', 'ticker.BTC-CSR12-', 'MATIC_USDC-9MAR24-1d02-C']) {
      assertIgnored(parse(fixtureLine(T, needle), ctxFor('deribit')), 'untracked');
    }
  });
});

describe('deribit index and DVOL', () => {
  test('deribit_price_index -> index, and remembered for USD conversion', () => {
    const ctx = ctxFor('deribit');
    const e = first(parse(fixtureLine('deribit/docs.jsonl', 'deribit_price_index'), ctx), 'index');
    assert.deepEqual(e, {
      venue: 'deribit',
      symbol: 'BTCUSDT',
      ts: 1550588002899,
      receivedAt: RECEIVED_AT,
      id: 'deribit:index:btc_usd:1550588002899',
      kind: 'index',
      name: 'btc_usd',
      value: 3937.89,
    });
    assert.equal(ctx.indexPrices.get('BTCUSDT'), 3937.89);
  });

  test('deribit_volatility_index -> vol_index in vol points', () => {
    const e = first(parse(fixtureLine('deribit/docs.jsonl', 'deribit_volatility_index'), ctxFor('deribit')), 'index');
    assert.equal(e.kind, 'vol_index');
    assert.equal(e.value, 129.36);
    assert.equal(e.ts, 1619777946007);
  });
});

describe('deribit control, unknown and broken frames', () => {
  test('test_request is answered with public/test', () => {
    const r = parse(fixtureLine('deribit/docs.jsonl', 'test_request'), ctxFor('deribit'));
    assertIgnored(r, 'heartbeat');
    assert.ok(r.outcome === 'ignored');
    assert.deepEqual(JSON.parse(r.control.reply ?? ''), { jsonrpc: '2.0', id: 9929, method: 'public/test', params: {} });
  });

  test('plain heartbeat, subscribe ack and error reply are control frames', () => {
    assertIgnored(parse(fixtureLine('deribit/docs.jsonl', '"type":"heartbeat"'), ctxFor('deribit')), 'heartbeat');
    assertIgnored(parse(fixtureLine('deribit/cryptofeed.jsonl', '"result":['), ctxFor('deribit')), 'ack');
    assertIgnored(parse(fixtureLine('deribit/docs.jsonl', '"error"'), ctxFor('deribit')), 'venue_error');
  });

  test('unsubscribed channels (book, quote) are dead letters with the channel', () => {
    const r = parse(fixtureLine(T, 'book.ETH-PERPETUAL.raw'), ctxFor('deribit'));
    assertDeadLetter(r, /unknown channel: book\.ETH-PERPETUAL\.raw/);
    assert.ok(!r.ok && r.channel === 'book.ETH-PERPETUAL.raw');
    assertDeadLetter(parse(fixtureLine(T, 'quote.BTC-PERPETUAL'), ctxFor('deribit')), /unknown channel/);
  });

  test('truncated, malformed and wrong-shape frames never throw', () => {
    const line = fixtureLine('deribit/crypto-crawler.jsonl', 'trades');
    assertDeadLetter(parse(line.slice(0, line.length / 2), ctxFor('deribit')), /malformed json/);
    assertDeadLetter(parse('', ctxFor('deribit')), /malformed json/);
    assertDeadLetter(parse('[1,2]', ctxFor('deribit')), /not a JSON object/);
    assertDeadLetter(parse('{"hello":"world"}', ctxFor('deribit')), /unknown message/);
    assertDeadLetter(
      parse(
        '{"jsonrpc":"2.0","method":"subscription","params":{"channel":"trades.option.BTC.100ms","data":[{"price":"x"}]}}',
        ctxFor('deribit'),
      ),
      /trade missing/,
    );
    assertDeadLetter(
      parse('{"jsonrpc":"2.0","method":"subscription","params":{"channel":"trades.option.BTC.100ms","data":{}}}', ctxFor('deribit')),
      /not an array/,
    );
  });

  test('an inverse option trade with no index anywhere is a dead letter (price cannot be converted)', () => {
    const line = fixtureLine('deribit/crypto-crawler.jsonl', 'trades').replace(',"index_price":56151.63', '');
    assertDeadLetter(parse(line, ctxFor('deribit')), /no index price/);
  });
});

describe('deribit trade frames read without JSON.parse', () => {
  const lines = ['crypto-crawler', 'cryptofeed', 'docs', 'tardis'].flatMap((f) => fixtureLines(`deribit/${f}.jsonl`));
  const tradesOf = (msg: JsonObject): Json[] | undefined => {
    const data = isObject(msg['params']) ? msg['params']['data'] : undefined;
    return Array.isArray(data) ? data : undefined;
  };

  test('every fixture frame and its variants: the same result and context state as the JSON.parse path', () => {
    const frames = lines.flatMap((l) => frameVariants(l, tradesOf));
    assert.ok(frames.length > 500, `${frames.length} frames`);
    assertSamePaths(frames, parseDeribitFrame, parseDeribitFrameJson, () => ctxFor('deribit'));
  });

  test('recorded trade frames take the one-pass path (no JSON.parse call), a ticker frame does not', () => {
    const trades = lines.filter((l) => l.includes('"channel":"trades.'));
    assert.ok(trades.length >= 3);
    const ctx = ctxFor('deribit');
    assert.equal(
      jsonParseCalls(() => trades.forEach((l) => assert.equal(parseDeribitFrame(l, ctx).outcome, 'events'))),
      0,
    );
    assert.equal(
      jsonParseCalls(() => parseDeribitFrame(fixtureLine(T, 'ticker.BTC-5JUN20-9250-C'), ctx)),
      1,
    );
  });

  test('a burst of 500 trades in one notification (~150 KiB) takes the one-pass path and gives what the JSON.parse path gives', () => {
    const msg = JSON.parse(fixtureLine('deribit/crypto-crawler.jsonl', 'BTC-26MAR21-62000-C')) as JsonObject;
    const params = msg['params'] as JsonObject;
    const [trade] = params['data'] as JsonObject[];
    const data = Array.from({ length: 500 }, (_, i) => ({ ...trade, trade_id: `${i}`, trade_seq: i }));
    const burst = JSON.stringify({ ...msg, params: { ...params, data } });
    assert.ok(burst.length > 96 * 1024, `${burst.length} characters`);
    assertOnePassBurst(burst, 500, parseDeribitFrame, parseDeribitFrameJson, () => ctxFor('deribit'));
  });
});
