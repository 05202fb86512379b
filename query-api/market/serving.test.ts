import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rebuildMarketMinutes } from '#clickhouse/market-rebuild.ts';
import { ROLLUP_FAMILIES } from '#clickhouse/market-rollups.ts';
import type { LinearTradeRow, LiquidationRow, PerpStatsRow } from '#clickhouse/rows.ts';
import type { Store } from '#clickhouse/store.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { readBundle } from './bundle-series.ts';
import { gridFor, INTERVALS, timestamps, type Grid } from './grid.ts';
import { MarketServing } from './serving.ts';
import { readCandles, readOpenInterest, SERIES, type SeriesData } from './series.ts';

/**
 * The serving path (serving.ts) against the roll-up path (series.ts / bundle.ts) on the same store: the JSON of every
 * series at every interval, windows ending in the open bucket, after the structures were built and then: late writes
 * into closed buckets, an event redelivered in another batch and `gex backfill --rebuild`'s minute rebuild, merges,
 * the live bucket and a moved window. Values are exact in binary floating point (integer prices, sizes in eighths,
 * funding in 1/1024ths, constant per venue and day), so every sum is exact in any order: the texts must be equal
 * byte for byte. (With inexact values the roll-up path itself is not a function of the bucket: ClickHouse sums a
 * bucket's venues, and its minutes, in an order that depends on the range read — on the bench data 37 of 100
 * hourly funding means differ in the last bits between a 8760 h and a 100 h window.)
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 4, 1);
/** 3 days, 5 h, 37 min 12.5 s of data: a partial day, hour and minute. */
const NOW = START + 3 * DAY + 5 * HOUR + 37 * 60_000 + 12_500;
const VENUES4 = ['deribit', 'bybit', 'okx', 'binance'] as const;
const WINDOWS = [3, 30, 80] as const;

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 4_294_967_296;
  };
}

const base = (venue: string, ts: number, id: string) => ({ venue, symbol: 'BTCUSDT', ts, received_at: ts, id });
const r = lcg(11);
let n = 0;
const trade = (market: 'perp' | 'spot', ts: number, venue: string = VENUES4[Math.floor(r() * 4)]!): LinearTradeRow => ({
  ...base(venue, ts, `${market}${n++}`),
  market,
  instrument: 'BTCUSDT',
  price: 90_000 + Math.floor(r() * 2000),
  size: 1 + Math.floor(r() * 40) / 8,
  side: r() < 0.5 ? 'buy' : 'sell',
  trade_id: String(n),
});
const stats = (venue: string, ts: number, oi: number | null, funding: number | null): PerpStatsRow => ({
  ...base(venue, ts, `st${n++}`),
  instrument: 'BTCUSDT',
  open_interest: oi,
  open_interest_usd: oi === null ? null : oi * 90_000,
  funding_rate: funding,
  next_funding_time: null,
  mark_price: null,
  index_price: null,
});
const liq = (ts: number): LiquidationRow => ({
  ...base(VENUES4[Math.floor(r() * 4)]!, ts, `l${n++}`),
  instrument: 'BTCUSDT',
  side: r() < 0.5 ? 'long' : 'short',
  price: 90_000,
  size: 0.5 + Math.floor(r() * 8) / 8,
});

async function seed(store: Store): Promise<LinearTradeRow[]> {
  const perp: LinearTradeRow[] = [];
  const spot: LinearTradeRow[] = [];
  const st: PerpStatsRow[] = [];
  const liqs: LiquidationRow[] = [];
  for (let t = START; t < NOW; t += 60_000) {
    const h = Math.floor((t - START) / HOUR);
    const at = (): number => Math.min(NOW - 1, t + [0, 59_999, Math.floor(r() * 60_000)][Math.floor(r() * 3)]!);
    if (h !== 20) for (let k = Math.floor(r() * 3); k > 0; k--) perp.push(trade('perp', at()));
    if (Math.floor(h / 24) !== 1) for (let k = Math.floor(r() * 2); k > 0; k--) spot.push(trade('spot', at()));
    for (const venue of ['bybit', 'okx', 'binance']) {
      if (r() < 0.5 || (venue === 'okx' && h >= 40 && h < 44)) continue;
      // Funding constant per venue and day: every per-venue mean (sum / count) is exact, so the cross-venue mean does
      // not depend on the order the engine sums the venues in (it is not fixed: see the file comment).
      const day = Math.floor(h / 24);
      st.push(
        stats(
          venue,
          at(),
          r() < 0.2 ? null : 20_000 + Math.floor(r() * 500),
          r() < 0.25 ? null : (((day * 7 + venue.length * 3) % 20) - 5) / 1024,
        ),
      );
    }
    if (r() < 0.05) liqs.push(liq(at()));
  }
  await store.insert('perp_trades', perp);
  await store.insert('spot_trades', spot);
  await store.insert('perp_stats', st);
  await store.insert('liquidations', liqs);
  return perp;
}

/** Counts the statements that read market data (roll-ups), apart from the parts checks. */
function countingStore(store: Store): { readonly store: Store; reads: number; checks: number } {
  const c = {
    reads: 0,
    checks: 0,
    store: {
      ...store,
      queryColumns: (sql: string, params?: Readonly<Record<string, unknown>>) => {
        if (sql.includes('system.parts')) c.checks++;
        else c.reads++;
        return store.queryColumns(sql, params);
      },
    } as Store,
  };
  return c;
}

/** Equal texts, or a failure naming the first difference (not the megabytes around it). */
function sameText(actual: string, expected: string, where: string): void {
  if (actual === expected) return;
  let i = 0;
  while (i < actual.length && actual[i] === expected[i]) i++;
  const key = /"([a-z_]+)":\[[^"]*$/.exec(expected.slice(0, i))?.[1] ?? '?';
  assert.fail(
    `${where}: texts differ at ${i} (column ${key}): served …${actual.slice(Math.max(0, i - 40), i + 40)}… roll-up …${expected.slice(Math.max(0, i - 40), i + 40)}…`,
  );
}

const summary = (s: Pick<SeriesData, 'coverage' | 'sources' | 'firstMs' | 'lastMs'>) => ({
  coverage: s.coverage,
  sources: [...s.sources],
  firstMs: s.firstMs,
  lastMs: s.lastMs,
});

let t: Awaited<ReturnType<typeof migratedStore>>;
let perp: LinearTradeRow[];
before(async () => {
  t = await migratedStore();
  perp = await seed(t.store);
});
after(async () => t.dispose());

/** Every series, every interval, three windows (the open bucket last): served text === JSON.stringify of the roll-up. */
async function assertSame(sv: MarketServing, store: Store, when: string, now = NOW): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const interval of INTERVALS) {
    for (const hours of WINDOWS) {
      const grid: Grid = gridFor(interval, hours, now);
      const where = `${when}: ${interval} x ${hours} h`;
      const served = await sv.bundle(store, grid, 'BTCUSDT', SERIES);
      const rolled = await readBundle(t.store, grid, 'BTCUSDT', SERIES);
      assert.deepEqual(served.errors, {}, where);
      for (const name of SERIES) {
        const s = served.series.get(name);
        const r = rolled.series.get(name);
        assert.ok(s && r, `${name} ${where}`);
        sameText(s.json, JSON.stringify(r.columns), `${name} ${where}`);
        assert.deepEqual(summary(s), summary(r), `${name} summary ${where}`);
        texts.set(`${name} ${interval} ${hours}`, s.json);
      }
      const spot = await sv.candles(store, grid, 'BTCUSDT', 'spot');
      const spotR = await readCandles(t.store, grid, 'BTCUSDT', 'spot');
      sameText(spot.json, JSON.stringify(spotR.columns), `spot candles ${where}`);
      assert.deepEqual(summary(spot), summary(spotR), `spot candles summary ${where}`);
      const oi = await sv.openInterest(store, grid, 'BTCUSDT');
      sameText(oi.json, JSON.stringify((await readOpenInterest(t.store, grid, 'BTCUSDT')).columns), `open interest ${where}`);
    }
  }
  return texts;
}

test('served JSON equals the roll-up path through late writes, a redelivery and its rebuild, merges, the live bucket and a moved window', async () => {
  const counted = countingStore(t.store);
  const sv = new MarketServing();
  /** Another API process: built now, used only at the end. */
  const other = new MarketServing();
  await other.bundle(t.store, gridFor('1h', 80, NOW), 'BTCUSDT', SERIES);

  const first = await assertSame(sv, counted.store, 'built');
  // Nothing changed: every request is the parts check alone, no roll-up statement.
  counted.reads = 0;
  counted.checks = 0;
  await assertSame(sv, counted.store, 'unchanged');
  assert.equal(counted.reads, 0, 'no roll-up read when no part changed');
  assert.equal(counted.checks, INTERVALS.length * WINDOWS.length * 3);

  // Late data (a venue's gap fill after a reconnect): old timestamps into closed minutes, hours and days.
  const lateAt = START + DAY + 3 * HOUR + 10 * 60_000 + 5_000;
  await t.store.insert('perp_trades', [trade('perp', lateAt, 'okx'), trade('perp', START + 20 * HOUR + 30_000, 'bybit')]); // hour 20 had no perp trade
  await t.store.insert('spot_trades', [trade('spot', START + DAY + 12 * HOUR, 'okx')]); // day 1 had no spot trade
  await t.store.insert('perp_stats', [stats('okx', START + 41 * HOUR + 59 * 60_000 + 59_999, 30_000, (((7 + 9) % 20) - 5) / 1024)]); // okx silent in hours 40-43 (day 1's okx rate)
  await t.store.insert('liquidations', [liq(lateAt)]);
  counted.reads = 0;
  const late = await assertSame(sv, counted.store, 'after late writes');
  assert.ok(counted.reads > 0, 'the changed buckets were re-read');
  for (const k of ['candles 1h 80', 'cvd_spot 1d 80', 'open_interest 1h 80', 'liquidations 1d 80', 'candles 1m 80']) {
    assert.notEqual(late.get(k), first.get(k), `${k}: the late write changed the answer`);
  }

  // An event redelivered in another batch: counted twice by the views, until `gex backfill --rebuild` recomputes the minutes.
  const dup = perp[100] as LinearTradeRow;
  await t.store.insert('perp_trades', [{ ...dup }]);
  const doubled = await assertSame(sv, counted.store, 'after a redelivery');
  assert.notEqual(doubled.get('candles 1d 80'), late.get('candles 1d 80'), 'the redelivery is counted twice');
  await rebuildMarketMinutes(t.store, START, NOW - HOUR);
  const rebuilt = await assertSame(sv, counted.store, 'after the rebuild');
  assert.equal(rebuilt.get('candles 1d 80'), late.get('candles 1d 80'), 'the rebuild removed the second copy');

  // Merges replace parts (same data): re-read, same answer.
  for (const f of ROLLUP_FAMILIES) for (const tier of ['1m', '1h', '1d']) await t.store.command(`OPTIMIZE TABLE ${f}_${tier} FINAL`);
  await assertSame(sv, counted.store, 'after merges');

  // The live bucket and a moved window: trades after NOW, served 25 minutes later.
  await t.store.insert('perp_trades', [trade('perp', NOW + 20 * 60_000), trade('perp', NOW + 24 * 60_000 + 59_000)]);
  await t.store.insert('spot_trades', [trade('spot', NOW + 21 * 60_000)]);
  await assertSame(sv, counted.store, 'window moved', NOW + 25 * 60_000);

  // The other process saw none of it when it was built: its parts check finds every change.
  await assertSame(other, t.store, 'another process', NOW + 25 * 60_000);

  // Concurrent requests on one (symbol, tier) while a late trade is written: each answer is served whole (the
  // refreshes are serialized per tier); once the writes are done every interval answers the roll-up again.
  const at = NOW + 26 * 60_000;
  const grids = (['1m', '5m', '15m', '30m'] as const).map((i) => gridFor(i, 30, at));
  await Promise.all([
    ...grids.map((g) => sv.bundle(counted.store, g, 'BTCUSDT', SERIES)),
    t.store.insert('perp_trades', [trade('perp', START + 2 * DAY + 30_000, 'deribit')]),
    ...grids.map((g) => sv.candles(counted.store, g, 'BTCUSDT', 'perp')),
  ]);
  await assertSame(sv, counted.store, 'after concurrent requests', at);
});

test('memory bound: least recently used structures are dropped, answers unchanged', async () => {
  const maxBytes = 400_000;
  const sv = new MarketServing(maxBytes);
  await assertSame(sv, t.store, 'bounded', NOW + 25 * 60_000);
  assert.ok(sv.bytes() <= maxBytes, `${sv.bytes()} bytes held`);
  // A 1m window of 80 h (4,800 buckets per table) alone exceeds the bound: served, then dropped.
  const grid = gridFor('1m', 80, NOW);
  const b = await sv.bundle(t.store, grid, 'BTCUSDT', ['candles']);
  sameText(
    b.series.get('candles')?.json ?? '',
    JSON.stringify((await readBundle(t.store, grid, 'BTCUSDT', ['candles'])).series.get('candles')?.columns),
    '1m x 80 h',
  );
  assert.ok(sv.bytes() <= maxBytes);
});

test('routes: the pre-rendered body (RESPONSE_VALIDATION off) carries the roll-up data text byte for byte', async () => {
  const key = await userWithKey(t.store, { userId: 'serving', plan: 'bundle_monthly' });
  const clock = testClock(NOW + 25 * 60_000);
  const app: ApiInstance = await testApp(t.store, { marketCacheMs: 0, responseValidation: false }, { clock });
  try {
    const dataText = async (url: string): Promise<string> => {
      const res = await app.inject({ method: 'GET', url, headers: { 'x-api-key': key } });
      assert.equal(res.statusCode, 200, res.body);
      const head = '{"success":true,"data":';
      assert.ok(res.body.startsWith(head));
      JSON.parse(res.body);
      return res.body.slice(head.length, res.body.indexOf(',"meta":{"version"'));
    };
    for (const [interval, hours] of [
      ['1h', 80],
      ['1d', 80],
      ['5m', 30],
    ] as const) {
      const grid = gridFor(interval, hours, clock());
      const rolled = await readBundle(t.store, grid, 'BTCUSDT', SERIES);
      const data: Record<string, unknown> = { symbol: 'BTCUSDT', interval, timestamps: timestamps(grid) };
      for (const [name, s] of rolled.series) data[name] = s === null ? null : s.columns;
      sameText(
        await dataText(`/v2/market/bundle?symbol=BTCUSDT&interval=${interval}&hours=${hours}`),
        JSON.stringify(data),
        `bundle ${interval}`,
      );
      const candles = await readCandles(t.store, grid, 'BTCUSDT', 'spot');
      sameText(
        await dataText(`/v2/market/candles?symbol=BTCUSDT&interval=${interval}&hours=${hours}&market=spot`),
        JSON.stringify({ symbol: 'BTCUSDT', interval, market: 'spot', timestamps: timestamps(grid), ...candles.columns }),
        `candles ${interval}`,
      );
      const oi = await readOpenInterest(t.store, grid, 'BTCUSDT');
      sameText(
        await dataText(`/v2/market/open-interest?symbol=BTCUSDT&interval=${interval}&hours=${hours}`),
        JSON.stringify({ symbol: 'BTCUSDT', interval, timestamps: timestamps(grid), ...oi.columns }),
        `open interest ${interval}`,
      );
    }
  } finally {
    await app.close();
  }
});
