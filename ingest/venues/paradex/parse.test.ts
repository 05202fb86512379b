/**
 * Paradex tests. Binary frames are BUILT here with Buffer writes from the published SBE schema layout
 * (paradex_1_0.xml as decoded by tradeparadex/paradex-py api/sbe/codec.py); no recorded capture exists. JSON
 * frames in fixtures/paradex/docs.jsonl: the subscribe ack is the docs example, the others are CONSTRUCTED from
 * the asyncapi fields (tradeparadex/paradex-docs); markets.json is a CONSTRUCTED /v1/markets body.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { registerInstruments } from '../../connector/context.ts';
import { fixtureLine, fixtureText } from '../fixtures/load.ts';
import { assertDeadLetter, assertIgnored, ctxFor, first, only, RECEIVED_AT } from '../testing/run-parser.ts';
import type { ParserContext } from '../../connector/types.ts';
import { paradexConnector } from './index.ts';
import { parseParadexMarkets } from './instruments.ts';
import { decodeSbe } from './sbe.ts';
import { encodeFundingData, encodeHeartbeat, encodeMarketSummary, encodeTrade, NULL_I64, sbeHeader } from './sbe-encode.ts';

const parse = paradexConnector.parse;
const parseBinary = paradexConnector.parseBinary;
const EXPIRY = Date.UTC(2026, 4, 8, 8);

function listedCtx(): ParserContext {
  const ctx = ctxFor('paradex');
  const r = parseParadexMarkets(fixtureText('paradex/markets.json'), RECEIVED_AT);
  assert.ok(r.ok);
  registerInstruments(ctx, r.events);
  return ctx;
}

const perpTrade = (over: Partial<Parameters<typeof encodeTrade>[0]> = {}): Buffer =>
  encodeTrade({
    timestampUs: 1778150400123456n,
    seqNo: 42n,
    tradeId: 987654321n,
    side: 1,
    price: 9650050000000n,
    size: 12500000n,
    createdAtUs: 1778150400123000n,
    tradeType: 1,
    market: 'BTC-USD-PERP',
    ...over,
  });

/** MarketSummaryEvent v1 slots (30 × int64, ×1e-8 unless a time / seq). */
function summarySlots(): bigint[] {
  const s = new Array<bigint>(30).fill(NULL_I64);
  s[0] = 1778150400500000n; // timestamp µs
  s[1] = 7n; // seq
  s[2] = 1855025000000n; // mark 18550.25
  s[3] = 9650050000000n; // index 96500.5
  s[4] = 1850000000000n; // last
  s[5] = 0n; // volume_usd24h
  s[6] = 325000000n; // open interest 3.25
  s[7] = 0n; // funding
  s[10] = 0n; // total volume
  s[11] = 0n; // price change
  s[12] = 51230000n; // mark_iv 0.5123
  s[13] = 50000000n; // bid_iv 0.5
  s[14] = 52500000n; // ask_iv 0.525
  s[16] = 95000000n; // delta 0.95
  s[17] = 500n; // gamma 0.000005
  s[18] = 1250000000n; // vega 12.5
  s[19] = -4512345678n; // theta -45.12345678
  s[27] = 412000000n; // forward_rate (v1)
  return s;
}

describe('paradex SBE decoder', () => {
  test('TradeEvent: header, fixed block, fixed point ×1e-8, µs times, var-string market', () => {
    const r = decodeSbe(perpTrade());
    assert.deepEqual(r, {
      ok: true,
      message: {
        template: 1,
        timestampUs: 1778150400123456,
        seqNo: 42,
        tradeId: '987654321',
        side: 1,
        price: 96500.5,
        size: 0.125,
        createdAtUs: 1778150400123000,
        tradeType: 1,
        market: 'BTC-USD-PERP',
      },
    });
  });

  test('MarketSummaryEvent v0 (216-byte block) and v1 (240): INT64_MIN -> null, appended fields only when present', () => {
    const v1 = decodeSbe(encodeMarketSummary(summarySlots(), 'BTC-USD-8MAY26-78000-C'));
    assert.ok(v1.ok && v1.message.template === 4);
    if (v1.ok && v1.message.template === 4) {
      assert.deepEqual(
        [v1.message.markPrice, v1.message.bid, v1.message.theta, v1.message.forwardRate, v1.message.futureFundingRate],
        [18550.25, null, -45.12345678, 4.12, null],
      );
    }
    const v0 = decodeSbe(encodeMarketSummary(summarySlots().slice(0, 27), 'BTC-USD-8MAY26-78000-C', 0));
    assert.ok(v0.ok && v0.message.template === 4 && v0.message.forwardRate === null && v0.message.markIv === 0.5123);
  });

  test('a longer block than known (future version) is skipped by blockLength', () => {
    const extra = Buffer.concat([sbeHeader(58, 1, 3), perpTrade().subarray(8, 58), Buffer.alloc(8), perpTrade().subarray(58)]);
    const r = decodeSbe(extra);
    assert.ok(r.ok && r.message.template === 1 && r.message.market === 'BTC-USD-PERP');
  });

  test('short, truncated, wrong schema, unknown template, bad string -> errors (never throws)', () => {
    assert.match(String(!decodeSbe(Buffer.alloc(5)).ok && (decodeSbe(Buffer.alloc(5)) as { reason: string }).reason), /too short/);
    const full = perpTrade();
    for (let n = 8; n < full.length; n++) assert.equal(decodeSbe(full.subarray(0, n)).ok, false, `truncated at ${n}`);
    const wrong = Buffer.from(full);
    wrong.writeUInt16LE(2, 4);
    assert.deepEqual(decodeSbe(wrong), { ok: false, reason: 'sbe schema id 2, expected 1', template: 1 });
    const unknown = Buffer.from(full);
    unknown.writeUInt16LE(99, 2);
    assert.deepEqual(decodeSbe(unknown), { ok: false, reason: 'sbe unknown templateId 99', template: 99 });
    const badUtf8 = Buffer.concat([full.subarray(0, 58), Buffer.from([2, 0xff, 0xfe])]);
    assert.equal(decodeSbe(badUtf8).ok, false);
    const shortBlock = Buffer.concat([sbeHeader(20, 1, 1), Buffer.alloc(20), Buffer.from([0])]);
    assert.match(String((decodeSbe(shortBlock) as { reason: string }).reason), /blockLength 20 < 50/);
  });
});

describe('paradex binary frames -> events', () => {
  test('perp trade: taker BUY, ms from created_at µs', () => {
    const t = first(parseBinary(perpTrade(), listedCtx()), 'perp_trade');
    assert.deepEqual(t, {
      venue: 'paradex',
      symbol: 'BTCUSDT',
      ts: 1778150400123,
      receivedAt: RECEIVED_AT,
      id: 'paradex:BTC-USD-PERP:987654321',
      instrument: 'BTC-USD-PERP',
      tradeId: '987654321',
      side: 'buy',
      price: 96500.5,
      size: 0.125,
      market: 'perp',
    });
  });

  test('liquidation fill: trade + liquidation (SELL closes a long); settlement / transfer skipped', () => {
    const r = parseBinary(perpTrade({ side: 2, tradeType: 2 }), listedCtx());
    assert.ok(r.ok && r.outcome === 'events');
    const liq = r.ok ? r.events[1] : undefined;
    assert.deepEqual(liq, {
      type: 'liquidation',
      event: {
        venue: 'paradex',
        symbol: 'BTCUSDT',
        ts: 1778150400123,
        receivedAt: RECEIVED_AT,
        id: 'paradex:liq:BTC-USD-PERP:987654321',
        instrument: 'BTC-USD-PERP',
        side: 'long',
        price: 96500.5,
        size: 0.125,
      },
    });
    assertIgnored(parseBinary(perpTrade({ tradeType: 4 }), listedCtx()), 'untracked');
  });

  test('dated option block trade', () => {
    const t = first(
      parseBinary(
        perpTrade({ market: 'BTC-USD-8MAY26-78000-C', price: 1855025000000n, size: 200000000n, tradeType: 6, side: 2 }),
        listedCtx(),
      ),
      'option_trade',
    );
    assert.deepEqual(
      [t.side, t.price, t.size, t.premiumUsd, t.expiry, t.strike, t.block, t.iv],
      ['sell', 18550.25, 2, 37100.5, EXPIRY, 78000, true, null],
    );
  });

  test('market summary -> option ticker (v1) and perp stats', () => {
    const t = first(parseBinary(encodeMarketSummary(summarySlots(), 'BTC-USD-8MAY26-78000-C'), listedCtx()), 'option_ticker');
    assert.deepEqual(t, {
      venue: 'paradex',
      symbol: 'BTCUSDT',
      ts: 1778150400500,
      receivedAt: RECEIVED_AT,
      id: 'paradex:markets_summary:BTC-USD-8MAY26-78000-C:1778150400500',
      instrument: 'BTC-USD-8MAY26-78000-C',
      strike: 78000,
      expiry: EXPIRY,
      optionType: 'call',
      markPrice: 18550.25,
      markIv: 0.5123,
      bidIv: 0.5,
      askIv: 0.525,
      delta: 0.95,
      gamma: 0.000005,
      vega: 12.5,
      theta: -45.12345678,
      openInterest: 3.25,
      underlyingPrice: null,
      indexPrice: 96500.5,
      // slots 8/9 bid/ask are null here, slot 4 last 18500 USD; the SBE summary carries no sizes; volume is USD
      priceCurrency: 'USD',
      bidPrice: null,
      askPrice: null,
      bidPriceUsd: null,
      askPriceUsd: null,
      bidSize: null,
      askSize: null,
      lastPrice: 18500,
      lastPriceUsd: 18500,
      volume24h: null,
    });
    const slots = summarySlots();
    slots[7] = 1250n; // funding 0.0000125
    const s = first(parseBinary(encodeMarketSummary(slots, 'BTC-USD-PERP'), listedCtx()), 'perp_stats');
    assert.deepEqual([s.fundingRate, s.openInterest, s.markPrice, s.indexPrice], [0.0000125, 3.25, 18550.25, 96500.5]);
  });

  test('funding data, heartbeat, subscribed, untracked and perpetual options', () => {
    const f = first(
      parseBinary(
        encodeFundingData(
          { ts: 1778150401000000n, seq: 1n, rate: 1000n, index: 5n, created: 1778150400999000n, premium: 0n, rate8h: 1000n, hours: 8 },
          'BTC-USD-PERP',
        ),
        listedCtx(),
      ),
      'perp_stats',
    );
    assert.deepEqual([f.fundingRate, f.ts, f.id], [0.00001, 1778150400999, 'paradex:funding_data:BTC-USD-PERP:1778150400999']);
    assertIgnored(parseBinary(encodeHeartbeat(1n), listedCtx()), 'heartbeat');
    assertIgnored(parseBinary(encodeHeartbeat(1n, 41), listedCtx()), 'ack');
    assertIgnored(parseBinary(perpTrade({ market: 'PEPE-USD-PERP' }), listedCtx()), 'untracked');
    assertIgnored(parseBinary(perpTrade({ market: 'BTC-USD-100000-C' }), listedCtx()), 'untracked');
  });

  test('truncated / unknown binary frames -> dead letters', () => {
    assertDeadLetter(parseBinary(perpTrade().subarray(0, 30), listedCtx()), /truncated/);
    assertDeadLetter(parseBinary(perpTrade({ side: 9 }), listedCtx()), /side 9/);
    assertDeadLetter(parse(perpTrade().toString('utf8'), listedCtx()), /malformed json/);
  });
});

describe('paradex JSON control plane and JSON pushes', () => {
  test('ack, error, JSON trade, JSON markets_summary', () => {
    assertIgnored(parse(fixtureLine('paradex/docs.jsonl', 'usDiff'), ctxFor('paradex')), 'ack');
    assertIgnored(parse(fixtureLine('paradex/docs.jsonl', 'already subscribed'), ctxFor('paradex')), 'venue_error');
    const t = first(parse(fixtureLine('paradex/docs.jsonl', '"channel":"trades.BTC-USD-PERP","data"'), listedCtx()), 'perp_trade');
    assert.deepEqual([t.ts, t.side, t.price, t.size, t.tradeId], [1778150400123, 'sell', 96500.5, 0.125, '1778150400123000001']);
    const [o] = only(parse(fixtureLine('paradex/docs.jsonl', 'markets_summary'), listedCtx()), 'option_ticker');
    assert.deepEqual([o?.markIv, o?.delta, o?.theta, o?.openInterest, o?.indexPrice], [0.5123, 0.95, null, 3.25, 96500.5]);
    // bid 18400, ask 18700, last_traded_price 18500 (USD); no bid_size / ask_size in this message
    assert.deepEqual(
      [o?.priceCurrency, o?.bidPrice, o?.askPrice, o?.bidPriceUsd, o?.lastPrice, o?.bidSize, o?.volume24h],
      ['USD', 18400, 18700, 18400, 18500, null, null],
    );
    assertDeadLetter(parse(fixtureLine('paradex/docs.jsonl', 'bbo.'), listedCtx()), /unknown channel: bbo/);
    assertDeadLetter(
      parse(
        '{"jsonrpc":"2.0","method":"subscription","params":{"channel":"trades.BTC-USD-PERP","data":{"market":"BTC-USD-PERP"}}}',
        listedCtx(),
      ),
      /trade missing/,
    );
  });

  test('markets: perps and dated options listed; perpetual options and untracked skipped; subscriptions', () => {
    const ctx = listedCtx();
    assert.deepEqual([...ctx.instruments.keys()], ['BTC-USD-PERP', 'BTC-USD-8MAY26-78000-C']);
    assert.equal(ctx.instruments.get('BTC-USD-8MAY26-78000-C')?.expiry, EXPIRY);
    const [plan] = paradexConnector.connections(['BTCUSDT'], [...ctx.instruments.values()]);
    assert.equal(plan?.url, 'wss://ws.api.prod.paradex.trade/v1?sbeSchemaId=1&sbeSchemaVersion=1');
    assert.deepEqual(
      plan?.subscribeFrames.map((f) => (JSON.parse(f) as { params: { channel: string } }).params.channel),
      ['trades.BTC-USD-PERP', 'trades.BTC-USD-8MAY26-78000-C', 'funding_data.BTC-USD-PERP', 'markets_summary'],
    );
    assert.equal(parseParadexMarkets('{"message":"rate limited"}', 1).ok, false);
  });
});
