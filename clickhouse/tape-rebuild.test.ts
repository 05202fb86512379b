import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rebuildMarketMinutes } from './market-rebuild.ts';
import { migrate } from './migrate.ts';
import { optionTradeRow } from './rows.ts';
import { optionTrade } from './testing/fixtures.ts';
import { openTempStore } from './testing/temp-store.ts';

const T0 = Date.UTC(2026, 2, 10, 12, 0);

test('option_tape_1m: a trade redelivered in another batch is summed twice by the view, once after gex backfill --rebuild', async () => {
  const t = await openTempStore();
  try {
    await migrate(t.store);
    const a = { ...optionTrade(0), ts: T0 + 5_000, id: 'deribit:X:1', tradeId: '1', size: 2, premiumUsd: 2_000, block: false };
    const b = { ...optionTrade(0), ts: T0 + 9_000, id: 'deribit:X:2', tradeId: '2', size: 3, premiumUsd: 3_000, block: true };
    await t.store.insert('option_trades', [a, b].map(optionTradeRow), { dedupToken: 'batch-1' });
    await t.store.insert('option_trades', [b].map(optionTradeRow), { dedupToken: 'batch-2' });
    const sums = async () =>
      (
        await t.store.query<{ n: string; size: number; premium: number; block: number }>(
          'SELECT toString(sum(trades)) AS n, sum(size) AS size, sum(premium_usd) AS premium, sum(block_premium_usd) AS block FROM option_tape_1m',
        )
      )[0];
    assert.deepEqual(await sums(), { n: '3', size: 8, premium: 8_000, block: 6_000 }, 'the redelivered trade counted twice');
    await rebuildMarketMinutes(t.store, T0 - 60_000, T0 + 60_000);
    assert.deepEqual(await sums(), { n: '2', size: 5, premium: 5_000, block: 3_000 }, 'each trade once, from option_trades FINAL');
    await rebuildMarketMinutes(t.store, T0 - 60_000, T0 + 60_000);
    assert.deepEqual(await sums(), { n: '2', size: 5, premium: 5_000, block: 3_000 }, 'idempotent');
  } finally {
    await t.dispose();
  }
});
