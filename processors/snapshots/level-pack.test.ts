import { test } from 'node:test';
import assert from 'node:assert/strict';
import { syntheticChain } from '../analytics/testing/synthetic-chain.ts';
import { rowsFromChain } from './compute-step.ts';
import { decodeLevelsPack, encodeLevelsPack, type PackedLevels } from './level-pack.ts';
import type { StoredSnapshotRow } from './snapshot-record.ts';

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);

const rows = (k: number): StoredSnapshotRow[] =>
  rowsFromChain(
    syntheticChain({
      symbol: 'BTCUSDT',
      now: T0,
      spot: 97_000 + 100 * k,
      venues: ['deribit', 'okx'],
      perVenue: 120,
      seed: 7 + k,
      withInventory: true,
    }),
    'live',
  );

/** The packed part of a row (what decodeLevelsPack gives back). */
function packedOf(r: StoredSnapshotRow): PackedLevels {
  const {
    symbol: _s,
    venue: _v,
    computed_at: _c,
    grid_min: _a,
    grid_step: _b,
    grid_points: _p,
    cell_expiry: _e,
    cell_strike: _k,
    cell_gex_std: _g,
    cell_gex_flow: _f,
    source: _o,
    ...packed
  } = r;
  return packed;
}

test('levels_pack: bit-exact round trip, nulls and -0 kept', () => {
  for (const r of rows(0)) {
    const withNulls = { ...r, perp_price: null, expiries: r.expiries.map((e, i) => (i === 0 ? { ...e, atm_iv: null } : e)), inv_net: -0 };
    assert.deepEqual(decodeLevelsPack(encodeLevelsPack(withNulls)), packedOf(withNulls));
    assert.ok(Object.is(decodeLevelsPack(encodeLevelsPack(withNulls)).inv_net, -0));
  }
});

test('levels_pack: packs of any size in any order decode exactly; a decoded pack keeps its values after the next decode', () => {
  const [small] = rows(1);
  assert.ok(small !== undefined);
  // 3 x 6,000 strikes x 8 bytes per expiry: ~140 KB packed, past the decoder's first buffer of 64 KiB.
  const wide = Array.from({ length: 6_000 }, (_, i) => 50_000 + 10 * i + 0.125);
  const large = {
    ...small,
    expiries: [{ expiry: T0 + 86_400_000, atm_iv: 0.55, atm_weight: 1, strikes: wide, call_oi: wide, put_oi: wide }],
  };
  const smallPack = encodeLevelsPack(small);
  const largePack = encodeLevelsPack(large);
  assert.ok(Buffer.from(largePack, 'base64').byteLength > 140_000);
  const first = decodeLevelsPack(smallPack);
  const grown = decodeLevelsPack(largePack);
  const after = decodeLevelsPack(smallPack);
  assert.deepEqual(first, packedOf(small));
  assert.deepEqual(grown, packedOf(large));
  assert.deepEqual(after, packedOf(small));
  assert.equal(grown.expiries[0]?.strikes[5_999], 50_000 + 59_990 + 0.125);
});

test('levels_pack: a truncated, ragged or foreign pack is an error', () => {
  const [r] = rows(2);
  assert.ok(r !== undefined);
  const bytes = Buffer.from(encodeLevelsPack(r), 'base64');
  assert.throws(() => decodeLevelsPack(bytes.subarray(0, bytes.byteLength - 8).toString('base64')), /levels_pack: (truncated|trailing)/);
  assert.throws(() => decodeLevelsPack(bytes.subarray(0, bytes.byteLength - 3).toString('base64')), /not a whole number of Float64 values/);
  assert.throws(() => decodeLevelsPack(Buffer.concat([bytes, Buffer.alloc(8)]).toString('base64')), /levels_pack: trailing values/);
  const other = Buffer.from(bytes);
  other.writeDoubleLE(2, 0);
  assert.throws(() => decodeLevelsPack(other.toString('base64')), /levels_pack: unknown version 2/);
});
