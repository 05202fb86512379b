import { performance } from 'node:perf_hooks';
import { migrate } from '../clickhouse/migrate.ts';
import { openTempStore } from '../clickhouse/testing/temp-store.ts';
import { ALL_INCLUDES } from '../processors/analytics/levels.ts';
import { syntheticChain } from '../processors/analytics/synthetic-chain.ts';
import { levelsAsOf, snapshotAsOf, levelsOfSnapshot } from '../processors/snapshots/as-of.ts';
import { rowsFromChain } from '../processors/snapshots/compute-step.ts';
import { levelsOf } from '../processors/snapshots/levels-step.ts';
import { storeLevelsAndFlow, storeSnapshotRows } from '../processors/snapshots/write-step.ts';
import { snapshotTimeAtOrBefore, rowsAt } from '../processors/snapshots/snapshot-reads.ts';
import { SNAPSHOT_COLUMNS } from '../processors/snapshots/snapshot-record.ts';

const { store, dispose } = await openTempStore();
await migrate(store);
const first = Math.floor(Date.UTC(2026, 9, 12, 12, 0, 0) / 30000) * 30000;
const N = 20;
for (let k = 0; k < N; k++) {
  const now = first + k * 30000;
  const chain = syntheticChain({ symbol: 'BTCUSDT', now, spot: 97000, venues: ['deribit', 'okx', 'bybit', 'binance'], perVenue: 600, seed: 1000 + k, withInventory: true, baseIv: 0.5 });
  const rows = rowsFromChain(chain, 'live');
  await storeSnapshotRows(store, 'BTCUSDT', now, rows);
  await storeLevelsAndFlow(store, levelsOf('BTCUSDT', now, rows), []);
}
const t = first + 10 * 30000 + 5;
const time = async (name: string, fn: () => Promise<unknown> | unknown, n = 30) => {
  for (let i = 0; i < 3; i++) await fn();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) { const s = performance.now(); await fn(); xs.push(performance.now() - s); }
  xs.sort((a, b) => a - b);
  console.log(name.padEnd(40), (xs[Math.floor(n / 2)] ?? 0).toFixed(2));
};
const raw = await store.query<Record<string, unknown>>(`SELECT ${SNAPSHOT_COLUMNS} FROM gex_snapshots WHERE symbol='BTCUSDT' AND computed_at = fromUnixTimestamp64Milli(${t - 5}, 'UTC')`);
console.log('row json bytes', raw.map((r) => JSON.stringify(r).length), Object.entries(raw[0] ?? {}).map(([k, v]) => [k, JSON.stringify(v).length]).filter(([, n]) => (n as number) > 2000));
await time('snapshotTimeAtOrBefore', () => snapshotTimeAtOrBefore(store, 'BTCUSDT', t));
await time('rowsAt', () => rowsAt(store, 'BTCUSDT', t - 5));
const s = await snapshotAsOf(store, 'BTCUSDT', t);
await time('levelsOfSnapshot 2 venues std', () => levelsOfSnapshot(s!, 'std', ['deribit', 'okx'], ['max_pain']));
await time('levelsOfSnapshot 1 venue flow all', () => levelsOfSnapshot(s!, 'flow', ['deribit'], ALL_INCLUDES));
await time('levelsAsOf 2 venues', () => levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: t, model: 'std', venues: ['deribit', 'okx'], include: ['max_pain'] }));
await time('levelsAsOf all', () => levelsAsOf(store, { symbol: 'BTCUSDT', asOfMs: t, model: 'std', include: ['max_pain'] }));
await time('SELECT 1', () => store.query('SELECT 1'));
// x 0 venues', () => levelRowsAtOrBefore(store, 'BTCUSDT', t, []));
// x 1 venue', () => levelRowsAtOrBefore(store, 'BTCUSDT', t, ['deribit']));
// x 2 venues', () => levelRowsAtOrBefore(store, 'BTCUSDT', t, ['deribit', 'okx']));
// x 4 venues', () => levelRowsAtOrBefore(store, 'BTCUSDT', t, ['deribit', 'okx', 'bybit', 'binance']));
// await time('point light cols', () => store.query(`SELECT venue, spot FROM gex_snapshots WHERE symbol='BTCUSDT' AND computed_at = fromUnixTimestamp64Milli(${t - 5}, 'UTC')`));
// await time('point strikes col', () => store.query(`SELECT venue, profile_std FROM gex_snapshots WHERE symbol='BTCUSDT' AND computed_at = fromUnixTimestamp64Milli(${t - 5}, 'UTC')`));
// await time('point near col', () => store.query(`SELECT venue, near FROM gex_snapshots WHERE symbol='BTCUSDT' AND computed_at = fromUnixTimestamp64Milli(${t - 5}, 'UTC')`));

const W = `FROM gex_snapshots WHERE symbol='BTCUSDT' AND computed_at = fromUnixTimestamp64Milli(${t - 5}, 'UTC')`;
const P = { venues: ['deribit', 'okx'] };
const { levelRowColumns } = await import('../processors/snapshots/snapshot-record.ts');
const cols = levelRowColumns({ std: true, flow: false, expiries: false });
const sub = `(SELECT computed_at FROM gex_levels WHERE symbol = 'BTCUSDT' AND computed_at <= fromUnixTimestamp64Milli(${t}, 'UTC') AND computed_at > fromUnixTimestamp64Milli(${t - 3600000}, 'UTC') ORDER BY computed_at DESC LIMIT 1)`;
for (let rep = 0; rep < 2; rep++) {
await time('SELECT 1', () => store.query('SELECT 1'));
await time('subquery alone', () => store.query(sub.slice(1, -1)));
await time('cols const t', () => store.query(`SELECT ${cols} ${W} AND venue IN ('deribit','okx')`));
await time('cols const t WHERE 0', () => store.query(`SELECT ${cols} ${W} AND venue IN ('deribit','okx') AND 0`));
await time('cols sub t', () => store.query(`SELECT ${cols} FROM gex_snapshots WHERE symbol='BTCUSDT' AND venue IN ('deribit','okx') AND computed_at = ${sub}`));
await time('cols IN sub t', () => store.query(`SELECT ${cols} FROM gex_snapshots WHERE symbol='BTCUSDT' AND venue IN ('deribit','okx') AND computed_at IN ${sub}`));
}
const parts = await store.query(`SELECT name, rows, marks FROM system.parts WHERE table='gex_snapshots' AND active`);
console.log(parts.length, JSON.stringify(parts.slice(0,3)));
await dispose();
