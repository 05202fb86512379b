import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { OptionTrade } from '#schemas/events.ts';
import { migrate } from './migrate.ts';
import { optionTradeRow } from './rows.ts';
import { optionTrade } from './testing/fixtures.ts';
import { openTempStore } from './testing/temp-store.ts';

const M = Date.UTC(2026, 2, 1, 12, 0);
const t = (i: number, o: Partial<OptionTrade>): OptionTrade => ({
  ...optionTrade(0),
  id: `deribit:x:${i}`,
  tradeId: String(i),
  block: false,
  ...o,
});

test('option_tape_1m: per minute and (venue, expiry, strike, type, side) counts, size, premium, notional, block sums; a retried batch once', async () => {
  const { store, dispose } = await openTempStore();
  try {
    await migrate(store);
    const batch = [
      t(1, { ts: M + 1_000, side: 'buy', size: 2, premiumUsd: 100, indexPrice: 80_000 }),
      t(2, { ts: M + 30_000, side: 'buy', size: 0.5, premiumUsd: 30, indexPrice: 80_000, block: true }),
      // no index, underlying 79,000 → notional 79,000
      t(3, { ts: M + 40_000, side: 'sell', size: 1, premiumUsd: 50, indexPrice: null, underlyingPrice: 79_000 }),
      // neither → notional 0, counted as missing
      t(4, { ts: M + 50_000, side: 'sell', size: 3, premiumUsd: 20, indexPrice: null, underlyingPrice: null, block: true }),
    ].map(optionTradeRow);
    await store.insert('option_trades', batch, { dedupToken: 'b1' });
    await store.insert('option_trades', batch, { dedupToken: 'b1' }); // retried batch: dropped in both tables
    await store.insert(
      'option_trades',
      [optionTradeRow(t(5, { ts: M + 61_000, side: 'buy', size: 1, premiumUsd: 10, indexPrice: 81_000 }))],
      { dedupToken: 'b2' },
    );
    const rows = await store.query(
      `SELECT toUnixTimestamp(bucket) - toUnixTimestamp(toDateTime('2026-03-01 12:00:00', 'UTC')) AS minute_s, side,
              sum(trades) AS trades, sum(size) AS size, sum(premium_usd) AS premium_usd, sum(notional_usd) AS notional_usd,
              sum(notional_missing) AS missing, sum(block_trades) AS block_trades, sum(block_size) AS block_size, sum(block_premium_usd) AS block_premium_usd
       FROM option_tape_1m WHERE symbol = 'BTCUSDT' AND venue = 'deribit' AND strike = 85000 AND option_type = 'call'
       GROUP BY bucket, side ORDER BY bucket, side`,
    );
    assert.deepEqual(rows, [
      {
        minute_s: '0',
        side: 'buy',
        trades: '2',
        size: 2.5,
        premium_usd: 130,
        notional_usd: 200_000,
        missing: '0',
        block_trades: '1',
        block_size: 0.5,
        block_premium_usd: 30,
      },
      {
        minute_s: '0',
        side: 'sell',
        trades: '2',
        size: 4,
        premium_usd: 70,
        notional_usd: 79_000,
        missing: '1',
        block_trades: '1',
        block_size: 3,
        block_premium_usd: 20,
      },
      {
        minute_s: '60',
        side: 'buy',
        trades: '1',
        size: 1,
        premium_usd: 10,
        notional_usd: 81_000,
        missing: '0',
        block_trades: '0',
        block_size: 0,
        block_premium_usd: 0,
      },
    ]);
  } finally {
    await dispose();
  }
});
