import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { VENUES } from '#schemas/events.ts';
import { venuesOfMask } from './layout.ts';
import { VENUE_ID } from './sql.ts';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { linearTradeRow } from '#clickhouse/rows.ts';
import { perpTrade } from '#clickhouse/testing/fixtures.ts';

const LIST = `[${VENUES.map((v) => `'${v}'`).join(', ')}]`;

test('migration 021 spells the venue list in VENUES order (bit i = VENUES[i])', () => {
  const sql = readFileSync(new URL('../../clickhouse/migrations/021_market_venue_mask.sql', import.meta.url), 'utf8');
  const lists = sql.match(/\['[a-z_]+'(?:, '[a-z_]+')*\]/g) ?? [];
  assert.ok(lists.length >= 8);
  for (const l of lists) assert.equal(l, LIST);
});

test('venuesOfMask reads the bits in VENUES order', () => {
  assert.deepEqual(venuesOfMask(0), []);
  assert.deepEqual(venuesOfMask(0b1111), ['deribit', 'bybit', 'okx', 'binance']);
  assert.deepEqual(venuesOfMask(1 << 9), ['paradex']);
});

test('the views fill venue_mask from the raw trades; a minute ORs the venues of its trades', async () => {
  const t = await openTempStore();
  try {
    await migrate(t.store);
    const rows = ['okx', 'paradex', 'okx'].map((venue, i) =>
      linearTradeRow({ ...perpTrade, venue: venue as (typeof VENUES)[number], id: `${venue}:${i}`, tradeId: String(i) }),
    );
    await t.store.insert('perp_trades', rows);
    const [r] = await t.store.query<{ mask: number }>(
      "SELECT toUInt32(groupBitOr(venue_mask)) AS mask FROM market_trades_1m WHERE market = 'perp'",
    );
    assert.equal(r?.mask, (1 << VENUES.indexOf('okx')) | (1 << VENUES.indexOf('paradex')));
  } finally {
    await t.dispose();
  }
});

test('the perp-stats roll-up key gives every venue its own id: 1 + its VENUES index (its mask bit), others a hash >= 16', async () => {
  const t = await openTempStore();
  try {
    const rows = await t.store.query<{ venue: string; h: string }>(
      `SELECT venue, toString(${VENUE_ID}) AS h FROM (SELECT toLowCardinality(arrayJoin({venues:Array(String)})) AS venue)`,
      { venues: [...VENUES, 'kraken', 'coinbase'] },
    );
    assert.deepEqual(
      rows.slice(0, VENUES.length).map((r) => r.h),
      VENUES.map((_, i) => String(i + 1)),
    );
    const others = rows.slice(VENUES.length).map((r) => Number(r.h));
    assert.ok(
      others.every((h) => h >= 16 && h < 2 ** 32),
      others.join(),
    );
    assert.notEqual(others[0], others[1]);
  } finally {
    await t.dispose();
  }
});
