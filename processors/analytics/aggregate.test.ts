import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { VENUES } from '#schemas/events.ts';
import type { Venue } from '#schemas/events.ts';
import { buildVenueRows, levelsFromRows, selectRows } from './aggregate.ts';
import type { SnapshotMeta } from './aggregate.ts';
import { computeLevelsFromChain } from './chain-file.ts';
import { ALL_INCLUDES } from './levels.ts';
import { prng, shuffled, syntheticChain } from './testing/synthetic-chain.ts';
import type { ChainSnapshot, DealerModel } from './types.ts';

const VENUE_SET: readonly Venue[] = ['deribit', 'okx', 'bybit', 'binance'];
const NOW = Date.UTC(2026, 9, 12, 13, 17, 5);

function randomChain(seed: number): ChainSnapshot {
  const r = prng(seed);
  const venues = VENUE_SET.filter(() => r() < 0.8);
  return syntheticChain({
    symbol: r() < 0.5 ? 'BTCUSDT' : 'ETHUSDT',
    now: NOW + Math.floor(r() * 86_400_000),
    spot: 20_000 + r() * 80_000,
    venues: venues.length > 0 ? venues : ['deribit'],
    perVenue: 40 + Math.floor(r() * 120),
    seed,
    withInventory: r() < 0.7,
    baseIv: 0.3 + r() * 0.6,
  });
}

function metaOf(c: ChainSnapshot): SnapshotMeta {
  return { symbol: c.symbol, computed_at: c.now, spot: c.spot, perp_price: c.perpPrice };
}

const SEEDS = Array.from({ length: 12 }, (_, i) => 1000 + i * 7919);
const MODELS: readonly DealerModel[] = ['std', 'flow'];

describe('venue re-aggregation (seeded property tests)', () => {
  test('all venues (named, with unknown names mixed in) equals the full computation exactly', () => {
    for (const seed of SEEDS) {
      const c = randomChain(seed);
      const rows = buildVenueRows(c);
      for (const model of MODELS) {
        const full = computeLevelsFromChain(c, model);
        assert.deepEqual(levelsFromRows(metaOf(c), rows, model, [...VENUE_SET, 'nope'], ALL_INCLUDES), full, `seed ${seed}`);
        assert.deepEqual(levelsFromRows(metaOf(c), rows, model, ['foo', 'bar'], ALL_INCLUDES), full, `all-invalid ${seed}`);
        assert.deepEqual(levelsFromRows(metaOf(c), rows, model, undefined, ALL_INCLUDES), full);
      }
    }
  });
  test('a venue subset equals the computation on that sub-chain; absent venues contribute zero', () => {
    for (const seed of SEEDS) {
      const c = randomChain(seed);
      const rows = buildVenueRows(c);
      const r = prng(seed ^ 0x5bd1e995);
      const subset = VENUE_SET.filter(() => r() < 0.5);
      if (subset.length === 0) continue;
      const sub: ChainSnapshot = { ...c, instruments: c.instruments.filter((i) => subset.includes(i.venue)) };
      for (const model of MODELS) {
        assert.deepEqual(
          levelsFromRows(metaOf(c), rows, model, [...subset, 'paradex', 'unknown'], ALL_INCLUDES),
          computeLevelsFromChain(sub, model),
          `seed ${seed} subset ${subset.join(',')}`,
        );
      }
    }
  });
  test('levels unchanged when instruments are shuffled', () => {
    for (const seed of SEEDS) {
      const c = randomChain(seed);
      const s: ChainSnapshot = { ...c, instruments: shuffled(c.instruments, prng(seed + 1)) };
      for (const model of MODELS) assert.deepEqual(computeLevelsFromChain(s, model), computeLevelsFromChain(c, model));
    }
  });
  test('a filter naming only venues without contracts gives the empty result', () => {
    const c = randomChain(42);
    const l = levelsFromRows(metaOf(c), buildVenueRows(c), 'std', ['paradex'], ALL_INCLUDES);
    assert.equal(l.all_expiry.call_resistance, null);
    assert.equal(l.all_expiry.hvl_reason, 'no_gamma');
    assert.equal(l.max_pain, null);
    assert.deepEqual(l.diagnostics?.venues, []);
  });
  test('rows are one per venue in canonical order; filter names are case-insensitive', () => {
    const c = randomChain(7);
    const rows = buildVenueRows(c);
    const order = rows.map((r) => r.venue);
    assert.deepEqual(
      order,
      [...order].sort((a, b) => VENUES.indexOf(a) - VENUES.indexOf(b)),
    );
    assert.equal(new Set(order).size, order.length);
    const first = rows[0];
    assert.ok(first !== undefined);
    assert.deepEqual(
      selectRows(rows, [first.venue.toUpperCase()]).map((r) => r.venue),
      [first.venue],
    );
    assert.equal(first.profile_std.length, 201);
    assert.equal(first.strikes.length, first.call_gex_std.length);
  });
  test('flow summed over venues: sum of per-venue net GEX equals the total', () => {
    const c = randomChain(99);
    const rows = buildVenueRows(c);
    const meta = metaOf(c);
    const total = computeLevelsFromChain(c, 'std').all_expiry.net_gex;
    let parts = 0;
    for (const r of rows) parts += levelsFromRows(meta, rows, 'std', [r.venue]).all_expiry.net_gex;
    assert.ok(Math.abs(parts - total) <= 1e-9 * Math.abs(total));
  });
});
