/** Store market events in their raw tables (what the raw writer does), for tests. */
import { toRawRow } from '#clickhouse/rows.ts';
import type { Store } from '#clickhouse/store.ts';
import type { MarketEvent } from '#schemas/events.ts';

export async function storeEvents(store: Store, events: readonly MarketEvent[], token?: string): Promise<void> {
  const byTable = new Map<string, object[]>();
  for (const e of events) {
    const { table, row } = toRawRow(e);
    let rows = byTable.get(table);
    if (rows === undefined) byTable.set(table, (rows = []));
    rows.push(row);
  }
  for (const [table, rows] of byTable) await store.insert(table, rows, token === undefined ? {} : { dedupToken: `${token}:${table}` });
}
