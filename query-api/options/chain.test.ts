import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '#clickhouse/store.ts';
import { consolidateChain, selectContracts } from '#processors/analytics/chain-quotes.ts';
import { withTrades, type ContractTrades } from '#processors/analytics/chain-trades.ts';
import { optionTradeRow } from '#clickhouse/rows.ts';
import { optionTrade } from '#clickhouse/testing/fixtures.ts';
import type { OptionTrade } from '#schemas/events.ts';
import { oiByExpiry } from '#processors/analytics/oi-by-expiry.ts';
import { venueBook } from '#processors/analytics/venue-book.ts';
import type { OptionChainRow } from '#processors/snapshots/option-chain.ts';
import { storeChainRows } from '#processors/snapshots/option-chain-record.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { contractJson, expiryOiJson, ladderJson, venueBookJson } from './chain-render.ts';

const HOUR = 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString();
const DAY = 24 * HOUR;
// Instants near the real clock: the tables' TTLs run on the store's clock. A is an hour tick (all three tiers).
const A = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
const B = A + 30_000; // 30 s tier only
const OLD = A - 10 * DAY; // only in the hourly tier (as after the 3-day TTL of the 30 s tier has run)
const E1 = Math.floor(A / DAY) * DAY + 7 * DAY + 8 * HOUR;
const E2 = E1 + 28 * DAY;
const TOKEN_MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
/** 27NOV26-style token of an instant's UTC day. */
const token = (ms: number): string => {
  const d = new Date(ms);
  return `${d.getUTCDate()}${TOKEN_MONTHS[d.getUTCMonth()]}${String(d.getUTCFullYear() % 100).padStart(2, '0')}`;
};
const day = (ms: number): string => iso(ms).slice(0, 10);
const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const root = new URL('../../', import.meta.url).pathname;

function row(t: number, p: Partial<OptionChainRow> & Pick<OptionChainRow, 'venue' | 'strike' | 'option_type' | 'expiry'>): OptionChainRow {
  return {
    symbol: 'BTCUSDT',
    computed_at: t,
    spot: 100_000,
    perp_price: 100_050,
    instrument: `${p.venue}-${p.expiry}-${p.strike}-${p.option_type}`,
    t_years: (p.expiry - t) / (365 * DAY),
    forward: 100_100,
    bid_price_usd: null,
    ask_price_usd: null,
    bid_size: null,
    ask_size: null,
    mark_price_usd: null,
    last_price_usd: null,
    mark_iv: 0.5,
    bid_iv: null,
    ask_iv: null,
    delta: null,
    gamma: null,
    vega: null,
    theta: null,
    delta_source: 'none',
    gamma_source: 'none',
    vega_source: 'none',
    theta_source: 'none',
    open_interest: 10,
    volume_24h: null,
    dealer_inventory: null,
    ticker_ts: t - 1_000,
    ...p,
  };
}

/**
 * Option trades around the chain instants. A and B (= A + 30 s) share the trade window [A − 24 h, A) (the 24 hours
 * before the instant's UTC minute): deribit's E1 100k call printed twice in it (premium 5,000 + 2,500 USD), okx's once
 * (10,200 USD); a print at A + 10 s (after the minute) and one at A − 24 h − 1 min are outside; a print on a contract
 * not in the chain is ignored.
 */
let tradeId = 0;
const print = (venue: 'deribit' | 'okx', ts: number, strike: number, premiumUsd: number, size: number): OptionTrade => ({
  ...optionTrade(),
  venue,
  ts,
  receivedAt: ts + 5,
  expiry: E1,
  strike,
  optionType: 'call',
  premiumUsd,
  size,
  priceUsd: premiumUsd / size,
  id: `${venue}:chain-test:${++tradeId}`,
  tradeId: String(tradeId),
});
const PRINTS = [
  print('deribit', A - HOUR, 100_000, 5_000, 1),
  print('deribit', A - 23 * HOUR, 100_000, 2_500, 0.5),
  print('okx', A - 10 * 60_000, 100_000, 10_200, 2),
  print('deribit', A + 10_000, 100_000, 99_999, 9), // after the instant's minute
  print('deribit', A - DAY - 60_000, 100_000, 88_888, 8), // before the window
  print('deribit', A - HOUR, 110_000, 7_777, 1), // not a chain contract
];
/** The trade figures of the window, by hand. */
const TRADES: ContractTrades[] = [
  { venue: 'deribit', expiry: E1, strike: 100_000, option_type: 'call', trade_count: 2, notional_volume: 7_500 },
  { venue: 'okx', expiry: E1, strike: 100_000, option_type: 'call', trade_count: 1, notional_volume: 10_200 },
];
/** The stored rows of an instant with their trade figures, as the routes serve them. */
const servedRowsAt = (t: number): OptionChainRow[] => withTrades(chainRowsAt(t), TRADES);

/** Two venues, two expiries; at B deribit's 100k call bid moves up to 5,060 (best bid changes venue). */
function chainRowsAt(t: number): OptionChainRow[] {
  const bid = t === B ? 5_060 : 5_000;
  return [
    row(t, {
      venue: 'deribit',
      expiry: E1,
      strike: 100_000,
      option_type: 'call',
      bid_price_usd: bid,
      bid_size: 2,
      ask_price_usd: 5_200,
      ask_size: 1,
      mark_price_usd: 5_100,
      bid_iv: 0.49,
      ask_iv: 0.51,
      open_interest: 30,
      volume_24h: 12,
      delta: 0.52,
      delta_source: 'venue',
    }),
    row(t, {
      venue: 'okx',
      expiry: E1,
      strike: 100_000,
      option_type: 'call',
      bid_price_usd: 5_050,
      bid_size: 1,
      ask_price_usd: 5_150,
      ask_size: 3,
      mark_price_usd: 5_120,
      mark_iv: 0.52,
      open_interest: 10,
      delta: 0.54,
      delta_source: 'computed',
    }),
    row(t, {
      venue: 'deribit',
      expiry: E1,
      strike: 100_000,
      option_type: 'put',
      bid_price_usd: 4_900,
      ask_price_usd: 5_000,
      mark_price_usd: 4_950,
      open_interest: 20,
    }),
    row(t, {
      venue: 'deribit',
      expiry: E1,
      strike: 90_000,
      option_type: 'put',
      bid_price_usd: 800,
      ask_price_usd: 900,
      mark_price_usd: 850,
      open_interest: 50,
    }),
    row(t, {
      venue: 'okx',
      expiry: E2,
      strike: 120_000,
      option_type: 'call',
      forward: 100_400,
      bid_price_usd: 2_000,
      ask_price_usd: 2_100,
      mark_price_usd: 2_050,
      open_interest: 5,
    }),
  ];
}

describe('/v2/options/chain, /v2/options/venue-book, /v2/options/oi/by-expiry on a real embedded store', () => {
  let t: { store: Store; dispose(): Promise<void> };
  let app: ApiInstance;
  let key: string;
  const clock = testClock(B + 10_000);

  before(async () => {
    t = await migratedStore();
    await storeChainRows(t.store, 'BTCUSDT', A, chainRowsAt(A));
    await storeChainRows(t.store, 'BTCUSDT', B, chainRowsAt(B));
    await t.store.insert('option_chain_snapshots_1h', chainRowsAt(OLD));
    await t.store.insert('option_trades', PRINTS.map(optionTradeRow), { dedupToken: 'chain-test' });
    key = await userWithKey(t.store, { userId: 'chain', plan: 'enterprise' });
    app = await testApp(t.store, {}, { clock });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  const get = (path: string) => app.inject({ url: path, headers: { 'x-api-key': key } });
  const chain = async (qs: string) =>
    assertOk<{ symbol: string; spot: number; layout: string; expiries: string[]; rows?: Record<string, unknown>[]; ladder?: unknown[] }>(
      await get(`/v2/options/chain?symbol=BTCUSDT${qs}`),
    );
  const hashOf = (meta: { extra?: unknown }): string => (meta.extra as { filter_hash: string }).filter_hash;

  test('chain (latest): one row per contract equal to the pure consolidation of the stored rows; best bid venue; meta', async () => {
    const { data, meta } = await chain('');
    const expected = consolidateChain(servedRowsAt(B)).map((c) => contractJson(c, B, 100_000, false));
    assert.deepEqual(data.rows, json(expected));
    assert.deepEqual(
      data.rows?.map((r) => `${r.strike}${r.type}`),
      ['90000put', '100000call', '100000put', '120000call'],
    );
    const call = data.rows?.[1];
    assert.deepEqual(
      [call?.bid_usd, call?.bid_venue, call?.bid_iv, call?.ask_usd, call?.ask_venue],
      [5_060, 'deribit', 0.49, 5_150, 'okx'],
    );
    assert.deepEqual(
      [call?.open_interest, call?.open_interest_usd, call?.mark_usd, call?.volume_24h],
      [40, 4_000_000, (30 * 5_100 + 10 * 5_120) / 40, 12],
    );
    // Trades of the 24 h before the instant's minute, summed over venues; premium paid, not underlying notional.
    assert.deepEqual([call?.trade_count, call?.notional_volume], [3, 17_700]);
    assert.deepEqual(
      data.rows?.filter((r) => r !== call).map((r) => [r.trade_count, r.notional_volume]),
      [
        [0, 0],
        [0, 0],
        [0, 0],
      ],
    );
    assert.deepEqual(data.expiries, [iso(E1), iso(E2)]);
    assert.deepEqual([meta.computed_at, meta.spot_price, meta.source], [iso(B), 100_000, ['deribit', 'okx']]);
    assert.match(hashOf(meta), /^[0-9a-f]{16}$/);
  });

  test('chain filters: expiry spellings and venue order hash alike; expiries, type, strikes, moneyness, ladder, breakdown; 404/422', async () => {
    const a = await chain(`&expiry=${token(E1)}&exchanges=okx,deribit`);
    const b = await chain(`&expiry=${day(E1)}&exchanges=deribit,OKX`);
    assert.equal(hashOf(a.meta), hashOf(b.meta));
    assert.notEqual(hashOf(a.meta), hashOf((await chain('')).meta));
    assert.deepEqual(
      a.data.rows?.map((r) => r.strike),
      [90_000, 100_000, 100_000],
    );
    const both = await chain(`&expiries=${token(E2)},${day(E1)}`);
    assert.equal(both.data.rows?.length, 4);
    assert.equal(hashOf(both.meta), hashOf((await chain(`&expiries=${day(E1)},${token(E2)}`)).meta));
    assert.deepEqual(
      (await chain('&type=put')).data.rows?.map((r) => r.strike),
      [90_000, 100_000],
    );
    assert.deepEqual(
      (await chain('&strike_min=95000&strike_max=100000')).data.rows?.map((r) => `${r.strike}${r.type}`),
      ['100000call', '100000put'],
    );
    // |90,000/100,100 − 1| = 0.1009; |120,000/100,400 − 1| = 0.195
    assert.deepEqual(
      (await chain('&moneyness=0.1')).data.rows?.map((r) => r.strike),
      [100_000, 100_000],
    );
    assert.deepEqual(
      (await chain('&moneyness=0.11')).data.rows?.map((r) => r.strike),
      [90_000, 100_000, 100_000],
    );
    const okx = await chain('&exchanges=okx');
    assert.deepEqual(
      okx.data.rows?.map((r) => [r.strike, r.bid_venue, r.open_interest]),
      [
        [100_000, 'okx', 10],
        [120_000, 'okx', 5],
      ],
    );
    assert.deepEqual(okx.meta.exchanges_filtered, ['okx']);
    const ladder = await chain(`&layout=ladder&expiry=${token(E1)}`);
    assert.deepEqual(
      ladder.data.ladder,
      json(ladderJson(consolidateChain(servedRowsAt(B), { expiryDays: [Math.floor(E1 / DAY) * DAY] }), B, 100_000, false)),
    );
    assert.deepEqual(
      (ladder.data.ladder as { strike: number; call: unknown; put: unknown }[]).map((l) => [l.strike, l.call === null, l.put === null]),
      [
        [90_000, true, false],
        [100_000, false, false],
      ],
    );
    const wide = await chain(`&include=exchange_breakdown&type=call&expiry=${token(E1)}`);
    const venues = (wide.data.rows?.[0]?.exchange_breakdown as { venue: string; bid_usd: number; greeks_source: { delta: string } }[]).map(
      (v) => [v.venue, v.bid_usd, v.greeks_source.delta],
    );
    assert.deepEqual(venues, [
      ['deribit', 5_060, 'venue'],
      ['okx', 5_050, 'computed'],
    ]);
    assertError(await get(`/v2/options/chain?symbol=BTCUSDT&expiry=${token(E1 + DAY)}`), 404, 'NOT_FOUND');
    assertError(await get(`/v2/options/chain?symbol=BTCUSDT&expiries=${token(E1)},${token(E1 + DAY)}`), 404, 'NOT_FOUND');
    for (const bad of [
      `expiry=${token(E1)}&expiries=${token(E1)}`,
      'moneyness=0',
      'moneyness=-1',
      'strike_min=abc',
      'layout=grid',
      'type=straddle',
      'include=everything',
      'expiries=',
      'as_of=yesterday',
    ]) {
      const e = assertError(await get(`/v2/options/chain?symbol=BTCUSDT&${bad}`), 422, 'VALIDATION_ERROR');
      assert.ok((e.error.details?.errors as unknown[]).length > 0, bad);
    }
    assertError(await get('/v2/options/chain?symbol=ETHUSDT'), 404, 'NOT_FOUND');
  });

  test('as_of: newest chain at or before (never after) across tiers, identical bytes twice; 404 before the first; 422 in the future', async () => {
    const url = `/v2/options/chain?symbol=BTCUSDT&as_of=${encodeURIComponent(iso(B - 1))}`;
    const first = await get(url);
    const r = assertOk<{ rows: { bid_usd: number; bid_venue: string }[] }>(first);
    assert.deepEqual([r.data.rows[1]?.bid_usd, r.data.rows[1]?.bid_venue], [5_050, 'okx']); // A: okx's 5,050 beats deribit's 5,000
    assert.deepEqual((r.meta.extra as { as_of: unknown }).as_of, { requested: iso(B - 1), snapshot_at: iso(A), lag_seconds: 29.999 });
    const dataBytes = (body: string): string => JSON.stringify((JSON.parse(body) as { data: unknown }).data);
    assert.equal(dataBytes((await get(url)).body), dataBytes(first.body));
    // 10 days back only the hourly tier holds a chain: 20 minutes after it, that one is served
    const old = assertOk<{ rows: unknown[] }>(await get(`/v2/options/chain?symbol=BTCUSDT&as_of=${iso(OLD + 20 * 60_000)}`));
    assert.equal(old.meta.computed_at, iso(OLD));
    assert.equal(old.data.rows.length, 4);
    assertError(await get(`/v2/options/chain?symbol=BTCUSDT&as_of=${iso(OLD - 1)}`), 404, 'NOT_FOUND');
    assertError(await get(`/v2/options/chain?symbol=BTCUSDT&as_of=${iso(clock() + 1_000)}`), 422, 'VALIDATION_ERROR');
  });

  test('venue book: pure venue book of the stored rows, tightest first; min_venues, limit with total, sort=strike; filters', async () => {
    const book = assertOk<{
      sort: string;
      total: number;
      rows: { strike: number; type: string; spread_bps: number | null; venues: unknown[] }[];
    }>(await get('/v2/options/venue-book?symbol=BTCUSDT'));
    assert.deepEqual(book.data.rows, json(venueBook(selectContracts(chainRowsAt(B), {}), 'spread_bps').map((x) => venueBookJson(x, B))));
    assert.equal(book.data.sort, 'spread_bps');
    const bps = book.data.rows.map((x) => x.spread_bps as number);
    assert.deepEqual(
      bps,
      [...bps].sort((a, b) => a - b),
    );
    // 100k call: best bid 5,060 (deribit), best ask 5,150 (okx): 90 / 5,105 × 10,000 bps
    const call = book.data.rows.find((x) => x.strike === 100_000 && x.type === 'call');
    assert.equal(call?.spread_bps, (90 / ((30 * 5_100 + 10 * 5_120) / 40)) * 10_000);
    const two = assertOk<{ total: number; rows: { strike: number }[] }>(await get('/v2/options/venue-book?symbol=BTCUSDT&min_venues=2'));
    assert.deepEqual([two.data.total, two.data.rows.map((x) => x.strike)], [1, [100_000]]);
    const one = assertOk<{ total: number; rows: unknown[] }>(await get('/v2/options/venue-book?symbol=BTCUSDT&limit=1'));
    assert.deepEqual([one.data.total, one.data.rows.length], [4, 1]);
    const byStrike = assertOk<{ rows: { strike: number }[] }>(await get('/v2/options/venue-book?symbol=BTCUSDT&sort=strike&type=put'));
    assert.deepEqual(
      byStrike.data.rows.map((x) => x.strike),
      [90_000, 100_000],
    );
    for (const bad of ['sort=wide', 'limit=0', 'limit=5001', 'min_venues=11'])
      assertError(await get(`/v2/options/venue-book?symbol=BTCUSDT&${bad}`), 422, 'VALIDATION_ERROR');
    assertError(await get(`/v2/options/venue-book?symbol=BTCUSDT&expiry=${day(E1 + DAY)}`), 404, 'NOT_FOUND');
  });

  test('OI by expiry: the pure figures of the stored rows (hand-checked max pain), breakdown, venue filter, as_of', async () => {
    const r = assertOk<{ spot: number; expiries: Record<string, unknown>[]; totals: Record<string, unknown> }>(
      await get('/v2/options/oi/by-expiry?symbol=BTCUSDT&include=exchange_breakdown'),
    );
    const pure = oiByExpiry(chainRowsAt(B), 100_000);
    assert.deepEqual(r.data.expiries, json(pure.expiries.map((e) => expiryOiJson(e, B, true))));
    const e1 = r.data.expiries[0];
    // E1: calls 100k × 40; puts 100k × 20, 90k × 50 → pain(90k) = 40·0 + 20·10,000 = 200,000; pain(100k) = 0
    assert.deepEqual([e1?.call_oi, e1?.put_oi, e1?.put_call_ratio, e1?.max_pain], [40, 70, 70 / 40, { strike: 100_000, value: 0 }]);
    assert.deepEqual([r.data.totals.call_oi, r.data.totals.put_oi, r.data.totals.total_oi_usd], [45, 70, 115 * 100_000]);
    const okx = assertOk<{ expiries: { call_oi: number; exchange_breakdown?: unknown }[] }>(
      await get('/v2/options/oi/by-expiry?symbol=BTCUSDT&exchanges=okx'),
    );
    assert.deepEqual(
      okx.data.expiries.map((e) => [e.call_oi, 'exchange_breakdown' in e]),
      [
        [10, false],
        [5, false],
      ],
    );
    const past = assertOk(await get(`/v2/options/oi/by-expiry?symbol=BTCUSDT&as_of=${iso(A)}`));
    assert.equal(past.meta.computed_at, iso(A));
  });

  test('CLI `gex chain --rows FILE` (rows as gex sql prints them) prints the route data for the same parameters; bad input exits 2', async (ctx) => {
    const stored = await t.store.query<Record<string, unknown>>(
      `SELECT * FROM option_chain_snapshots WHERE symbol = 'BTCUSDT' AND computed_at = fromUnixTimestamp64Milli({t:Int64}) ORDER BY venue, instrument`,
      { t: B },
    );
    assert.equal(typeof stored[0]?.computed_at, 'string'); // ClickHouse text, as FORMAT JSONEachRow prints it
    const dir = mkdtempSync(join(tmpdir(), 'gex-chain-'));
    ctx.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'rows.jsonl');
    writeFileSync(file, stored.map((r) => JSON.stringify(r)).join('\n'));
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', 'chain', '--rows', file, ...args], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, LOG_LEVEL: 'warn' },
      });
    const trades = await t.store.query<Record<string, unknown>>(
      `SELECT venue, toUnixTimestamp64Milli(expiry) AS expiry_ms, strike, option_type, sum(trades) AS trade_count, sum(premium_usd) AS notional_volume
       FROM option_tape_1m WHERE symbol = 'BTCUSDT' AND bucket >= toDateTime({from:Int64}, 'UTC') AND bucket < toDateTime({to:Int64}, 'UTC')
       GROUP BY venue, expiry, strike, option_type`,
      { from: (A - DAY) / 1000, to: A / 1000 },
    );
    const tradesFile = join(dir, 'trades.jsonl');
    writeFileSync(tradesFile, trades.map((r) => JSON.stringify(r)).join('\n'));
    const withFile = cli('--trades', tradesFile);
    assert.equal(withFile.status, 0, withFile.stderr);
    assert.deepEqual(JSON.parse(withFile.stdout), assertOk(await get('/v2/options/chain?symbol=BTCUSDT')).data, 'chain with --trades');
    const without = JSON.parse(cli().stdout) as { rows: { trade_count: unknown; notional_volume: unknown }[] };
    assert.ok(
      without.rows.every((r) => r.trade_count === null && r.notional_volume === null),
      'no --trades: the figures are null',
    );
    const cases: [string, string, string][] = [
      ['chain', 'layout=ladder&include=exchange_breakdown&moneyness=0.5', '/v2/options/chain'],
      ['venue-book', 'sort=spread_usd&exchanges=deribit', '/v2/options/venue-book'],
      ['oi-by-expiry', 'include=exchange_breakdown', '/v2/options/oi/by-expiry'],
    ];
    for (const [view, query, path] of cases) {
      const r = cli('--view', view, '--query', query);
      assert.equal(r.status, 0, r.stderr);
      const served = assertOk<Record<string, unknown>>(await get(`${path}?symbol=BTCUSDT&${query}`)).data;
      // Without --trades the CLI's trade figures are null where the route serves the stored trades.
      const nulled = JSON.parse(JSON.stringify(served, (k, v: unknown) => (k === 'trade_count' || k === 'notional_volume' ? null : v)));
      assert.deepEqual(JSON.parse(r.stdout), nulled, view);
    }
    assert.equal(cli('--query', `expiry=${token(E1 + DAY)}`).status, 2);
    assert.equal(cli('--query', 'moneyness=-1').status, 2);
    assert.equal(cli('--view', 'smile').status, 2);
  });
});
