import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import type { Store } from '#clickhouse/store.ts';
import type { MarketEvent } from '#schemas/events.ts';
import type { ChainSnapshot } from '../analytics/types.ts';
import type { NamedInstrument } from './chain.ts';
import { runCycle } from './cycle.ts';
import { chainRow, sameUnits } from './option-chain.ts';
import { CHAIN_TIERS, tiersOf } from './option-chain-record.ts';
import { MarketState, quoteOf } from './state.ts';
import type { TickerState } from './state.ts';
import { marketEvents, TICK, tradeEvents } from './testing/chain-fixture.ts';
import { storeEvents } from './testing/store-events.ts';

const CHAIN_OPTS = { tickerFreshnessMs: 300_000, priceFreshnessMs: 60_000 };
const NOW = Date.UTC(2026, 0, 1);
const EXPIRY = NOW + 7 * 86_400_000; // T = 7/365

// processors/README.md vectors: F 100,000, K 105,000, σ 0.5, T 7/365 (call).
const B76 = { delta: 0.251427, gamma: 4.60318e-5, vega: 44.1401, theta: -157.643 };

function instrument(quote: Partial<Parameters<typeof quoteOf>[0]>, markIv: number | null = 0.5): NamedInstrument {
  const ticker: TickerState = {
    venue: 'deribit',
    instrument: 'BTC-8JAN26-105000-C',
    ts: NOW - 2_000,
    strike: 105_000,
    expiry: EXPIRY,
    type: 'call',
    markIv,
    openInterest: 12,
    underlyingPrice: 100_000,
    indexPrice: 99_900,
    quote: quoteOf(quote),
  };
  return {
    venue: 'deribit',
    instrument: ticker.instrument,
    ticker,
    strike: 105_000,
    expiry: EXPIRY,
    type: 'call',
    openInterest: 12,
    markIv,
    forward: 100_000,
    dealerInventory: -3,
  };
}

const CHAIN: ChainSnapshot = { symbol: 'BTCUSDT', now: NOW, spot: 99_900, perpPrice: 99_950, instruments: [] };

const rel = (a: number | null, b: number): number => Math.abs((a as number) - b) / Math.abs(b);

describe('consolidated chain row (pure)', () => {
  test('no venue greeks: all four computed with Black-76 on the forward (hand vectors)', () => {
    const r = chainRow(CHAIN, instrument({}));
    assert.deepEqual([r.delta_source, r.gamma_source, r.vega_source, r.theta_source], ['computed', 'computed', 'computed', 'computed']);
    assert.ok(
      rel(r.delta, B76.delta) < 1e-5 && rel(r.gamma, B76.gamma) < 1e-5 && rel(r.vega, B76.vega) < 1e-5 && rel(r.theta, B76.theta) < 1e-5,
    );
    assert.equal(r.t_years, 7 / 365);
    assert.equal(r.forward, 100_000);
    assert.equal(r.spot, 99_900);
    assert.equal(r.perp_price, 99_950);
    assert.equal(r.dealer_inventory, -3);
    assert.equal(r.ticker_ts, NOW - 2_000);
  });

  test('venue greeks in the same units are kept; other units (×100 vega, per-year theta, gamma per 1 %) are replaced', () => {
    const r = chainRow(CHAIN, instrument({ delta: 0.26, gamma: 4.60318e-5 * 100_000 * 0.01, vega: 44.1401 * 100, theta: -157.643 * 1.2 }));
    assert.deepEqual([r.delta, r.delta_source], [0.26, 'venue']);
    assert.equal(r.gamma_source, 'computed'); // published per 1 % move (×1,000 here): off by far more than 3×
    assert.ok(rel(r.gamma, B76.gamma) < 1e-5);
    assert.equal(r.vega_source, 'computed');
    assert.ok(rel(r.vega, B76.vega) < 1e-5);
    assert.deepEqual([r.theta, r.theta_source], [-157.643 * 1.2, 'venue']);
  });

  test('no mark IV: published greeks kept unchecked, others none; book fields, empty sides null', () => {
    const r = chainRow(
      CHAIN,
      instrument(
        {
          delta: 0.3,
          bidPriceUsd: 0,
          askPriceUsd: 1_250.5,
          bidSize: null,
          askSize: 4,
          markPrice: 1_200,
          lastPriceUsd: 1_190,
          volume24h: 55,
          bidIv: 0.49,
          askIv: 0.53,
        },
        null,
      ),
    );
    assert.deepEqual(
      [r.delta, r.delta_source, r.gamma, r.gamma_source, r.vega_source, r.theta_source],
      [0.3, 'venue', null, 'none', 'none', 'none'],
    );
    assert.deepEqual(
      [
        r.bid_price_usd,
        r.ask_price_usd,
        r.bid_size,
        r.ask_size,
        r.mark_price_usd,
        r.last_price_usd,
        r.volume_24h,
        r.mark_iv,
        r.bid_iv,
        r.ask_iv,
      ],
      [null, 1_250.5, null, 4, 1_200, 1_190, 55, null, 0.49, 0.53],
    );
  });

  test('units guard: same sign within 3× either way', () => {
    assert.equal(sameUnits(0.3, 0.1), true);
    assert.equal(sameUnits(0.31, 0.1), false);
    assert.equal(sameUnits(0.034, 0.1), true);
    assert.equal(sameUnits(0.033, 0.1), false);
    assert.equal(sameUnits(-0.1, 0.1), false);
    assert.equal(sameUnits(0, 0), true);
  });

  test('retention tiers: every tick in the 30 s table, 5-minute and hour boundaries also in the coarser ones', () => {
    const names = (t: number): string[] => tiersOf(t).map((x) => x.table);
    assert.deepEqual(names(Date.UTC(2026, 0, 1, 10, 0, 30)), ['option_chain_snapshots']);
    assert.deepEqual(names(Date.UTC(2026, 0, 1, 10, 5, 0)), ['option_chain_snapshots', 'option_chain_snapshots_5m']);
    assert.deepEqual(
      names(Date.UTC(2026, 0, 1, 10, 0, 0)),
      CHAIN_TIERS.map((x) => x.table),
    );
  });
});

interface StoredRow {
  venue: string;
  instrument: string;
  strike: number;
  option_type: string;
  open_interest: number;
  mark_iv: number | null;
  forward: number;
  dealer_inventory: number | null;
  spot: number;
  perp_price: number | null;
  delta_source: string;
  bid_price_usd: number | null;
}

describe('chain snapshot written by the snapshot cycle (embedded store)', () => {
  let store: Store;
  let dispose: () => Promise<void>;
  const state = new MarketState();
  const withBook = (events: MarketEvent[]): MarketEvent[] =>
    events.map((m) =>
      m.type === 'option_ticker' && m.event.instrument === 'BTC-E2-100000-C'
        ? { type: 'option_ticker', event: { ...m.event, bidPriceUsd: 5_000, askPriceUsd: 5_100, delta: 0.52 } }
        : m,
    );

  before(async () => {
    ({ store, dispose } = await openTempStore());
    await migrate(store);
    await storeEvents(store, withBook(marketEvents()));
    await storeEvents(store, tradeEvents(), 'a');
    for (const e of withBook(marketEvents())) state.apply(e);
  });
  after(async () => dispose());

  const read = (table: string, t: number): Promise<StoredRow[]> =>
    store.query<StoredRow>(
      `SELECT venue, instrument, strike, option_type, open_interest, mark_iv, forward, dealer_inventory, spot, perp_price, toString(delta_source) AS delta_source, bid_price_usd
       FROM ${table} FINAL WHERE symbol = 'BTCUSDT' AND computed_at = fromUnixTimestamp64Milli({t:Int64}) ORDER BY venue, instrument`,
      { t },
    );

  test('the chain the engine used at the tick (stale, expired tickers out; no-IV kept), spot, perp, inventory; every tier at an hour tick; a re-run stores nothing twice', async () => {
    const ctx = { store, bus: null, state, chain: CHAIN_OPTS };
    assert.equal((await runCycle(ctx, 'BTCUSDT', TICK, 'live')).kind, 'stored');
    const rows = await read('option_chain_snapshots', TICK);
    assert.deepEqual(
      rows.map((r) => [r.venue, r.instrument, r.open_interest, r.mark_iv, r.forward, r.dealer_inventory]),
      [
        ['deribit', 'BTC-E1-100000-C', 100, 0.45, 100_050, null],
        ['deribit', 'BTC-E1-100000-P', 120, 0.45, 100_050, -5],
        ['deribit', 'BTC-E2-100000-C', 500, 0.5, 100_200, -20],
        ['deribit', 'BTC-E2-100000-P', 400, 0.52, 100_200, null],
        ['deribit', 'BTC-E2-105000-C', 600, 0.48, 100_200, null],
        ['deribit', 'BTC-E2-95000-P', 800, 0.58, 100_200, 900],
        ['okx', 'BTC-USD-E2-100000-C', 50, 0.51, 100_180, null],
        ['okx', 'BTC-USD-E2-110000-C', 30, null, 100_180, null],
        ['okx', 'BTC-USD-E2-95000-P', 70, 0.57, 100_180, null],
      ],
    );
    assert.ok(rows.every((r) => r.spot === 100_050 && r.perp_price === 100_200));
    const booked = rows.find((r) => r.instrument === 'BTC-E2-100000-C');
    assert.deepEqual([booked?.bid_price_usd, booked?.delta_source], [5_000, 'venue']);
    assert.equal(TICK % 3_600_000, 0);
    for (const tier of CHAIN_TIERS) assert.equal((await read(tier.table, TICK)).length, 9, tier.table);
    // the same tick again from the raw tables (a retried cycle): no second copy in any tier
    await store.command('TRUNCATE TABLE gex_snapshots');
    await runCycle(ctx, 'BTCUSDT', TICK, 'store');
    for (const tier of CHAIN_TIERS) {
      const n = await store.query<{ n: number }>(
        `SELECT toUInt32(count()) AS n FROM ${tier.table} WHERE computed_at = fromUnixTimestamp64Milli({t:Int64})`,
        { t: TICK },
      );
      assert.equal(n[0]?.n, 9, tier.table);
    }
  });

  test('a 30 s tick goes to the 30 s table only', async () => {
    const t = TICK + 30_000;
    await runCycle({ store, bus: null, state, chain: CHAIN_OPTS }, 'BTCUSDT', t, 'live');
    assert.equal((await read('option_chain_snapshots', t)).length, 9);
    assert.equal((await read('option_chain_snapshots_5m', t)).length, 0);
    assert.equal((await read('option_chain_snapshots_1h', t)).length, 0);
  });
});
