import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, MIGRATIONS_DIR } from './migrate.ts';
import { optionTradeRow } from './rows.ts';
import type { Store } from './store.ts';
import { optionTrade, TODAY } from './testing/fixtures.ts';
import { openTempStore } from './testing/temp-store.ts';

const DAY = 86_400_000;
/** Expiries in five different months from today, and one that expired three days ago. */
const LIVE_EXPIRIES = [1, 35, 70, 105, 140].map((d) => TODAY + d * DAY + 8 * 3_600_000);
const EXPIRED = TODAY - 3 * DAY + 8 * 3_600_000;

const trade = (i: number, expiry: number) => optionTradeRow({ ...optionTrade(i), id: `deribit:T:${i}`, tradeId: String(i), expiry });

async function count(store: Store, sql: string): Promise<number> {
  const [r] = await store.query<{ n: string }>(sql);
  return Number(r?.n ?? Number.NaN);
}
const parts = (store: Store, table: string): Promise<number> =>
  count(store, `SELECT count() AS n FROM system.parts WHERE database = currentDatabase() AND table = '${table}' AND active`);

test('062: stored unexpired trades are copied; an insert of five expiry months is one part; the retired table gets nothing', async () => {
  const { store, dispose } = await openTempStore();
  const before062 = mkdtempSync(join(tmpdir(), 'gex-migrations-061-'));
  try {
    for (const f of readdirSync(MIGRATIONS_DIR))
      if (f.endsWith('.sql') && Number(f.slice(0, 3)) <= 61) cpSync(join(MIGRATIONS_DIR, f), join(before062, f));
    await migrate(store, { dir: before062 });
    // Written before 062: two live trades and one whose contract expired three days ago.
    await store.insert('option_trades', [trade(1, LIVE_EXPIRIES[0] ?? 0), trade(2, LIVE_EXPIRIES[1] ?? 0), trade(3, EXPIRED)]);
    assert.equal(await count(store, 'SELECT count() AS n FROM option_trades'), 3);
    // 060's view copied the live two (the expired one too, but when its expiry month holds no live trade, as in the
    // first days and the last day of a month, its part is wholly past the TTL and may be dropped at once).
    assert.deepEqual(await store.query(`SELECT id FROM option_trades_live FINAL WHERE expiry >= now() ORDER BY id`), [
      { id: 'deribit:T:1' },
      { id: 'deribit:T:2' },
    ]);

    const { applied } = await migrate(store);
    assert.deepEqual(applied, ['062_option_trades_unexpired']);
    assert.deepEqual(await store.query('SELECT id FROM option_trades_unexpired FINAL ORDER BY id'), [
      { id: 'deribit:T:1' },
      { id: 'deribit:T:2' },
    ]);

    const liveRows = await count(store, 'SELECT count() AS n FROM option_trades_live');
    const partsBefore = await parts(store, 'option_trades_unexpired');
    const rows = LIVE_EXPIRIES.flatMap((e, k) => [trade(10 + 2 * k, e), trade(11 + 2 * k, e)]);
    await store.insert('option_trades', rows, { dedupToken: 'five-months' });
    assert.equal((await parts(store, 'option_trades_unexpired')) - partsBefore, 1, 'one part for trades of five expiry months');
    assert.equal(await count(store, 'SELECT count() AS n FROM option_trades_live'), liveRows, 'option_trades_live_mv writes nothing');
    assert.equal(await count(store, 'SELECT count() AS n FROM option_trades_unexpired FINAL'), 12);

    // A redelivered trade (another insert, same key) collapses under FINAL, as in option_trades.
    await store.insert('option_trades', [trade(10, LIVE_EXPIRIES[0] ?? 0)], { dedupToken: 'again' });
    assert.equal(await count(store, 'SELECT count() AS n FROM option_trades_unexpired FINAL'), 12);

    // Row TTL: a trade stored after its expiry + 1 day goes at the next TTL merge; the unexpired stay.
    await store.insert('option_trades', [trade(99, EXPIRED)], { dedupToken: 'expired' });
    await store.command('OPTIMIZE TABLE option_trades_unexpired FINAL');
    assert.equal(await count(store, "SELECT count() AS n FROM option_trades_unexpired WHERE id = 'deribit:T:99'"), 0);
    assert.equal(await count(store, 'SELECT count() AS n FROM option_trades_unexpired'), 12);
  } finally {
    rmSync(before062, { recursive: true, force: true });
    await dispose();
  }
});
