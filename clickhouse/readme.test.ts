import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { migrate } from './migrate.ts';
import { optionTradeRow } from './rows.ts';
import { splitSqlStatements } from './split-sql.ts';
import { optionTrade } from './testing/fixtures.ts';
import { openTempStore } from './testing/temp-store.ts';

test('README example queries run against the migrated schema', async () => {
  const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
  const sql = [...readme.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').join('\n');
  const statements = splitSqlStatements(sql);
  // The first example is checked for its exact answer; every other example must at least run.
  assert.ok(statements.length >= 3, `expected the README's example queries, found ${statements.length}`);
  const { store, dispose } = await openTempStore();
  try {
    await migrate(store);
    await store.insert('option_trades', [optionTradeRow(optionTrade(0)), optionTradeRow(optionTrade(1))]);
    const [volume, ...rest] = statements;
    const rows = await store.query(volume ?? '');
    const expiryDay = new Date(optionTrade(0).expiry).toISOString().slice(0, 10);
    assert.deepEqual(rows, [{ venue: 'deribit', expiry_day: expiryDay, trades: '2', coins: 1.2, premium_usd: 209 }]);
    for (const s of rest) assert.ok(Array.isArray(await store.query(s)));
  } finally {
    await dispose();
  }
});
