/**
 * Past GEX snapshots for the explorer's browser test: the demo has run for a minute, while the level study needs
 * stored snapshots spanning more than its 4 h horizon. Writes the hand-built chain of the snapshot tests every
 * `stepMs` over [fromMs, toMs] with the processor's write path (rowsFromChain → storeSnapshotRows → levelsOf →
 * storeLevelsAndFlow), as the live tick does. Changed so that the levels stay put while spot moves through them:
 * expiries after the seeded span, forwards following spot, dealers long every call and short every put (both
 * models then have an hvl near 100,400, crossed by spot's two waves around 100,000).
 */
import type { Store } from '#clickhouse/store.ts';
import type { ChainSnapshot } from '#processors/analytics/types.ts';
import { rowsFromChain } from '#processors/snapshots/compute-step.ts';
import { gammaFlowPoints, levelsOf } from '#processors/snapshots/levels-step.ts';
import { expectedChain, TICK } from '#processors/snapshots/testing/chain-fixture.ts';
import { storeLevelsAndFlow, storeSnapshotRows } from '#processors/snapshots/write-step.ts';

/** Spot of snapshot k: a 4 h wave and a faster one around 100,000 (crossing the chain's levels both ways). */
const spotAt = (k: number, stepMs: number): number => {
  const hours = (k * stepMs) / 3_600_000;
  return 100_000 + 1_500 * Math.sin((2 * Math.PI * hours) / 4) + 400 * Math.sin((2 * Math.PI * hours) / 1.1);
};

/** Stores BTCUSDT snapshots at fromMs, fromMs + stepMs, … ≤ toMs; returns how many. */
export async function seedLevelHistory(store: Store, fromMs: number, toMs: number, stepMs: number): Promise<number> {
  const base = expectedChain();
  let k = 0;
  for (let at = fromMs; at <= toMs; at += stepMs, k++) {
    const spot = spotAt(k, stepMs);
    const instruments = base.instruments.map((i) => ({
      ...i,
      // The fixture's expiries sit 6 h and 7 d after its tick: keep those gaps after the last seeded instant.
      expiry: i.expiry - TICK + toMs,
      forward: (i.forward * spot) / base.spot,
      dealerInventory: i.type === 'call' ? i.openInterest : -i.openInterest,
    }));
    const chain: ChainSnapshot = { ...base, instruments, now: at, spot };
    const rows = rowsFromChain(chain, 'live');
    await storeSnapshotRows(store, 'BTCUSDT', at, rows);
    const levels = levelsOf('BTCUSDT', at, rows);
    await storeLevelsAndFlow(store, levels, gammaFlowPoints(levels, { flow: null, std: null }));
  }
  return k;
}
