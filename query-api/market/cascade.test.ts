import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, MIGRATIONS_DIR } from '#clickhouse/migrate.ts';
import { ROLLUP_FAMILIES, ROLLUP_TIERS, rollupSelect } from '#clickhouse/market-rollups.ts';
import type { LinearTradeRow, LiquidationRow, PerpStatsRow } from '#clickhouse/rows.ts';
import type { Store } from '#clickhouse/store.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { readBundle } from './bundle-series.ts';
import { gridFor, INTERVALS, INTERVAL_MINUTES } from './grid.ts';
import { SERIES } from './series.ts';
import { tierFor } from './tiers.ts';

/**
 * The cascaded read (hourly and daily states, migration 022) against the 1-minute read on the same data: every
 * series at every interval, windows ending in a partial current hour and day. Half of the data is stored before
 * migration 022 (copied by its fill), the rest after (through its views). Values are exact in binary floating
 * point (integer prices, sizes in eighths, funding in 1/1024ths), so every sum is exact in any order and the two
 * reads must agree to the bit.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2026-03-01 00:00 UTC; data from START to NOW (4 days, 5 h, 37 min 12.5 s: a partial hour and a partial day). */
const START = Date.UTC(2026, 2, 1);
const NOW = START + 4 * DAY + 5 * HOUR + 37 * 60_000 + 12_500;
const VENUES4 = ['deribit', 'bybit', 'okx', 'binance'] as const;

/** Deterministic PRNG (LCG): the same market on every run. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 4_294_967_296;
  };
}

interface Market {
  readonly perp: LinearTradeRow[];
  readonly spot: LinearTradeRow[];
  readonly stats: PerpStatsRow[];
  readonly liqs: LiquidationRow[];
}

const base = (venue: string, ts: number, id: string) => ({ venue, symbol: 'BTCUSDT', ts, received_at: ts, id });

/**
 * Per minute 0-3 perpetual and 0-2 spot trades (some exactly on the minute, hour or day edge, some 1 ms before),
 * perp stats from three venues (open interest or funding missing in some messages), a liquidation now and then.
 * Gaps: no perpetual trade during hour 30, no spot trade on day 2, no perp stats of okx during hours 50-53.
 */
function market(): Market {
  const r = lcg(7);
  const m: Market = { perp: [], spot: [], stats: [], liqs: [] };
  let n = 0;
  for (let t = START; t < NOW; t += 60_000) {
    const h = Math.floor((t - START) / HOUR);
    const at = (): number => Math.min(NOW - 1, t + [0, 59_999, Math.floor(r() * 60_000)][Math.floor(r() * 3)]!);
    const trade = (market: 'perp' | 'spot'): LinearTradeRow => ({
      ...base(VENUES4[Math.floor(r() * 4)]!, at(), `${market}${n++}`),
      market,
      instrument: 'BTCUSDT',
      price: 90_000 + Math.floor(r() * 2000),
      size: 1 + Math.floor(r() * 40) / 8,
      side: r() < 0.5 ? 'buy' : 'sell',
      trade_id: String(n),
    });
    if (h !== 30) for (let k = Math.floor(r() * 4); k > 0; k--) m.perp.push(trade('perp'));
    if (Math.floor(h / 24) !== 2) for (let k = Math.floor(r() * 3); k > 0; k--) m.spot.push(trade('spot'));
    for (const venue of ['bybit', 'okx', 'binance']) {
      if (r() < 0.4 || (venue === 'okx' && h >= 50 && h < 54)) continue;
      const oi = r() < 0.2 ? null : 20_000 + Math.floor(r() * 500);
      m.stats.push({
        ...base(venue, at(), `st${n++}`),
        instrument: 'BTCUSDT',
        open_interest: oi,
        open_interest_usd: oi === null || r() < 0.3 ? null : oi * 90_000,
        funding_rate: r() < 0.25 ? null : Math.floor(r() * 20 - 5) / 1024,
        next_funding_time: null,
        mark_price: null,
        index_price: null,
      });
    }
    if (r() < 0.05) {
      m.liqs.push({
        ...base(VENUES4[Math.floor(r() * 4)]!, at(), `l${n++}`),
        instrument: 'BTCUSDT',
        side: r() < 0.5 ? 'long' : 'short',
        price: 90_000,
        size: 0.5 + Math.floor(r() * 8) / 8,
      });
    }
  }
  return m;
}

async function insert(store: Store, m: Market, keep: (ts: number) => boolean): Promise<void> {
  await store.insert(
    'perp_trades',
    m.perp.filter((x) => keep(x.ts)),
  );
  await store.insert(
    'spot_trades',
    m.spot.filter((x) => keep(x.ts)),
  );
  await store.insert(
    'perp_stats',
    m.stats.filter((x) => keep(x.ts)),
  );
  await store.insert(
    'liquidations',
    m.liqs.filter((x) => keep(x.ts)),
  );
}

let t: Awaited<ReturnType<typeof openTempStore>>;
before(async () => {
  t = await openTempStore();
  // Migrations up to 021, the first two days (+ 7 h: a day and an hour split across the two paths), then 022 and the rest.
  const before022 = mkdtempSync(join(tmpdir(), 'gex-migrations-'));
  try {
    for (const f of readdirSync(MIGRATIONS_DIR)) if (f < '022') cpSync(join(MIGRATIONS_DIR, f), join(before022, f));
    await migrate(t.store, { dir: before022 });
  } finally {
    rmSync(before022, { recursive: true, force: true });
  }
  const m = market();
  const split = START + 2 * DAY + 7 * HOUR + 30 * 60_000;
  await insert(t.store, m, (ts) => ts < split);
  await migrate(t.store);
  await insert(t.store, m, (ts) => ts >= split);
});
after(async () => t.dispose());

test('every series at every interval: the cascaded read equals the 1-minute read, partial hour and day included', async () => {
  for (const interval of INTERVALS) {
    for (const hours of [110, 7, 30]) {
      const grid = gridFor(interval, hours, NOW);
      const cascaded = await readBundle(t.store, grid, 'BTCUSDT', SERIES);
      const minutes = await readBundle(t.store, grid, 'BTCUSDT', SERIES, '1m');
      const where = `${interval} x ${hours} h (${tierFor(INTERVAL_MINUTES[interval])} tables)`;
      assert.deepEqual(cascaded.errors, {}, where);
      for (const name of SERIES) {
        const c = cascaded.series.get(name);
        assert.ok(c, `${name} ${where}`);
        assert.deepEqual(c, minutes.series.get(name), `${name} ${where}`);
        // Not vacuous: data in the window; from 1h up (the cascaded tables), the newest event in the partial current bucket.
        assert.ok(c.coverage > 0, `${name} ${where}`);
        if (grid.stepMs >= HOUR && name !== 'liquidations')
          assert.ok(c.lastMs !== null && c.lastMs >= grid.toMs - grid.stepMs, `${name} ${where}`);
      }
    }
  }
});

test('the comparison covers gaps and the partial day: nulls are not carried forward on either path', async () => {
  const grid = gridFor('1h', 110, NOW);
  const b = await readBundle(t.store, grid, 'BTCUSDT', ['candles', 'cvd_spot', 'open_interest']);
  const at = (ms: number): number => (ms - grid.fromMs) / grid.stepMs;
  const candles = b.series.get('candles');
  assert.equal(candles?.columns['open']?.[at(START + 30 * HOUR)], null, 'hour 30 has no perpetual trade');
  assert.equal(candles?.columns['trades']?.[at(START + 31 * HOUR)] !== null, true);
  const spot = b.series.get('cvd_spot');
  assert.equal(spot?.columns['cvd']?.[at(START + 2 * DAY + 12 * HOUR)], null, 'no spot trade on day 2');
  assert.equal(b.series.get('open_interest')?.columns['venue_count']?.[at(START + 51 * HOUR)], 2, 'okx silent in hours 50-53');
  const day = gridFor('1d', 110, NOW);
  const d = await readBundle(t.store, day, 'BTCUSDT', ['cvd_spot']);
  assert.deepEqual(
    d.series.get('cvd_spot')?.columns['delta']?.map((x) => x === null),
    [false, false, true, false, false],
  );
});

test('the hourly and daily tables hold one row per key after merges, far fewer than the minutes', async () => {
  for (const f of ROLLUP_FAMILIES) for (const tier of ['1m', ...ROLLUP_TIERS]) await t.store.command(`OPTIMIZE TABLE ${f}_${tier} FINAL`);
  const [n] = await t.store.query<{ m: string; h: string; d: string }>(
    "SELECT toString((SELECT count() FROM market_trades_1m WHERE market = 'perp')) AS m, toString((SELECT count() FROM market_trades_1h WHERE market = 'perp')) AS h, toString((SELECT count() FROM market_trades_1d WHERE market = 'perp')) AS d",
  );
  // 101 hours and 6 minutes minus hour 30; 5 days. Minutes: most of the 6,098.
  assert.deepEqual({ h: n?.h, d: n?.d }, { h: '101', d: '5' });
  assert.ok(Number(n?.m) > 4000);
});

test("migration 022's views and fill run the same aggregation as clickhouse/market-rollups.ts", () => {
  const sql = readFileSync(join(MIGRATIONS_DIR, '022_market_rollups.sql'), 'utf8');
  for (const f of ROLLUP_FAMILIES) {
    for (const tier of ROLLUP_TIERS) {
      assert.ok(
        sql.includes(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${f}_${tier}_mv TO ${f}_${tier} AS\n${rollupSelect(f, tier)};`),
        `${f}_${tier}_mv`,
      );
      assert.ok(
        sql.includes(`INSERT INTO ${f}_${tier}\n${rollupSelect(f, tier, `(SELECT count() FROM ${f}_${tier}) = 0`)}\nSETTINGS`),
        `${f}_${tier} fill`,
      );
    }
  }
});
