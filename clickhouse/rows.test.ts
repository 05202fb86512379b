import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { MarketEvent } from '#schemas/events.ts';
import { migrate } from './migrate.ts';
import { deadLetterRow, RAW_TABLES, toRawRow, type RawRow } from './rows.ts';
import type { Store } from './store.ts';
import * as fx from './testing/fixtures.ts';
import { openTempStore } from './testing/temp-store.ts';
import { msColumn } from './epoch-ms.ts';

/** DateTime64 columns, read back as epoch ms (Float64, so they are JSON numbers like the row's). */
const TIME_COLUMNS = ['ts', 'received_at', 'expiry', 'next_funding_time'] as const;

async function readBack(store: Store, table: string): Promise<Record<string, unknown>[]> {
  const cols = await store.query<{ name: string }>(
    'SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {t:String} ORDER BY position',
    { t: table },
  );
  const replaced = TIME_COLUMNS.filter((c) => cols.some((x) => x.name === c)).map((c) => msColumn(c, c));
  return store.query<Record<string, unknown>>(`SELECT * REPLACE (${replaced.join(', ')}) FROM {t:Identifier} FINAL ORDER BY id`, {
    t: table,
  });
}

describe('raw tables round-trip through rows.ts', () => {
  let store: Store;
  let dispose: () => Promise<void>;
  before(async () => {
    const t = await openTempStore();
    store = t.store;
    dispose = t.dispose;
    await migrate(store);
  });
  after(async () => dispose());

  const events: readonly MarketEvent[] = [
    { type: 'instrument', event: fx.instrumentOption },
    { type: 'instrument', event: fx.instrumentPerp },
    { type: 'option_trade', event: fx.optionTrade(0) },
    { type: 'option_trade', event: fx.optionTrade(1) },
    { type: 'option_ticker', event: fx.optionTicker },
    { type: 'perp_trade', event: fx.perpTrade },
    { type: 'spot_trade', event: fx.spotTrade },
    { type: 'perp_stats', event: fx.perpStats },
    { type: 'liquidation', event: fx.liquidation },
    { type: 'index', event: fx.indexPrice },
  ];

  test('every family: stored row equals the mapped row, field for field', async () => {
    const byTable = new Map<string, RawRow[]>();
    for (const e of events) {
      const { table, row } = toRawRow(e);
      byTable.set(table, [...(byTable.get(table) ?? []), row]);
    }
    byTable.set(RAW_TABLES.dead_letter, [deadLetterRow(fx.deadLetter)]);
    assert.equal(byTable.size, Object.keys(RAW_TABLES).length);
    for (const [table, rows] of byTable) await store.insert(table, rows);
    for (const [table, rows] of byTable) {
      const expected = [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
      assert.deepEqual(await readBack(store, table), expected, table);
    }
  });

  test('camelCase -> snake_case mapping of one option trade, exactly', () => {
    const { table, row } = toRawRow({ type: 'option_trade', event: fx.optionTrade(0) });
    assert.equal(table, 'option_trades');
    assert.deepEqual(row, {
      venue: 'deribit',
      symbol: 'BTCUSDT',
      ts: fx.TS,
      received_at: fx.TS + 17,
      id: 'deribit:BTC-27MAR26-85000-C:1000',
      instrument: 'BTC-27MAR26-85000-C',
      strike: 85000,
      expiry: fx.EXPIRY,
      option_type: 'call',
      price: 0.0123,
      price_currency: 'BTC',
      price_usd: 1044.2345678901,
      size: 0.1,
      premium_usd: 104.42345678901,
      side: 'buy',
      iv: 0.5512,
      index_price: 84895.12,
      underlying_price: null,
      trade_id: '1000',
      block: false,
    });
  });

  test('times are stored as UTC instants (DateTime64 text is UTC)', async () => {
    const rows = await store.query<{ ts: string; expiry: string }>(
      'SELECT toString(ts) AS ts, toString(expiry) AS expiry FROM option_trades WHERE id = {id:String}',
      { id: fx.optionTrade(0).id },
    );
    const text = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
    assert.deepEqual(rows, [{ ts: text(fx.TS), expiry: text(fx.EXPIRY) }]);
    assert.match(text(fx.TS), / 08:00:01\.234$/);
  });

  test('a redelivered event (same ts, venue, id; new batch) collapses under FINAL', async () => {
    const { table, row } = toRawRow({ type: 'perp_trade', event: fx.perpTrade });
    await store.insert(table, [{ ...row, received_at: row.received_at + 1000 }], { dedupToken: 'redelivery-1' });
    const [raw] = await store.query<{ n: string }>('SELECT count() AS n FROM perp_trades');
    const [fin] = await store.query<{ n: string }>('SELECT count() AS n FROM perp_trades FINAL');
    assert.deepEqual([raw?.n, fin?.n], ['2', '1']);
  });

  test('instruments keep the latest version per (symbol, venue, instrument)', async () => {
    const newer = { ...fx.instrumentPerp, ts: fx.instrumentPerp.ts + 60_000, active: true };
    await store.insert('instruments', [toRawRow({ type: 'instrument', event: newer }).row]);
    const rows = await store.query<{ active: boolean; n: string }>(
      'SELECT active, count() OVER () AS n FROM instruments FINAL WHERE instrument = {i:String}',
      { i: 'SOLUSDT' },
    );
    assert.deepEqual(rows, [{ active: true, n: '1' }]);
  });
});
