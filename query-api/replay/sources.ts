/**
 * The stored history of each replay channel as a pull-based source (merge.ts), read from the store in bounded
 * pages: at most one page (REPLAY_PAGE trades, or REPLAY_PAGE instants, then one snapshot at a time) is held per
 * channel, the next page is read only when the merge has consumed the previous one.
 * - tape.{symbol}: the stored trades of the window in /v2/tape's ascending order (ts, venue, id; option_trades
 *   FINAL), each message the tape row (tape/tape-row.ts) at the trade time.
 * - levels.{symbol}[.venues]: every completed snapshot instant of the window (gex_levels), each message the live
 *   levels channel's data (ws/bus-source.ts levelsNotification) for the snapshot rows stored at that instant.
 * - chain.{symbol}[.venues]: every stored 30 s chain of the window (option_chain_snapshots, the finest tier, kept
 *   3 days), a `snapshot` message at the first instant, then one `changes` message per instant against the
 *   previous one, as the live chain channel sends them (ws/chain-feed.ts).
 */
import { msColumn, msParam } from '#clickhouse/epoch-ms.ts';
import type { Store } from '#clickhouse/store.ts';
import { rowsAt } from '#processors/snapshots/processor-reads.ts';
import { metaOf } from '#processors/snapshots/levels-step.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { servedChainRowsAt } from '../options/chain-reads.ts';
import { readTapeEntries } from '../tape/read.ts';
import { allTrades } from '../tape/filter.ts';
import type { TapeCursor } from '../tape/cursor.ts';
import { levelsNotification } from '../ws/bus-source.ts';
import { chainViewOf, changesJson, snapshotJson } from '../ws/chain-feed.ts';
import type { Channel } from '../ws/protocol.ts';
import type { ReplayItem, ReplaySource } from './merge.ts';

/** Trades or snapshot instants read per store query. */
export const REPLAY_PAGE = 1_000;

/** The window of a replay, ms UTC, both ends included. */
export interface ReplayWindow {
  readonly fromMs: number;
  readonly toMs: number;
}

/** A message's data, serialized. */
export type ReplayData = string;

async function* tapeItems(store: Store, symbol: MarketSymbol, w: ReplayWindow, page: number): AsyncGenerator<ReplayItem<ReplayData>> {
  const filter = allTrades(symbol, w.fromMs, w.toMs);
  let cursor: TapeCursor | null = null;
  for (;;) {
    const { entries, more } = await readTapeEntries(store, filter, 'asc', page, cursor);
    for (const e of entries) yield { atMs: e.ts, value: JSON.stringify(e.row) };
    const last = entries[entries.length - 1];
    if (!more || last === undefined) return;
    cursor = { ts: last.ts, venue: last.venue, id: last.id, order: 'asc' };
  }
}

/** Instants of a table in (after, to] ∩ [from, to], ascending, at most `limit`, each once. */
const instantsSql = (table: string, where: string): string => `SELECT ${msColumn('computed_at', 't')} FROM ${table}
WHERE symbol = {symbol:String}${where} AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}
  AND computed_at > ${msParam('after')}
ORDER BY computed_at LIMIT 1 BY computed_at LIMIT {limit:UInt32}`;
// A cycle writes both models in one insert: the `std` rows name every completed tick once.
const LEVEL_INSTANTS = instantsSql('gex_levels', ` AND model = 'std'`);
const CHAIN_INSTANTS = instantsSql('option_chain_snapshots', '');

async function* instants(store: Store, sql: string, symbol: MarketSymbol, w: ReplayWindow, page: number): AsyncGenerator<number> {
  let after = Math.ceil(w.fromMs) - 1;
  for (;;) {
    const rows = await store.query<{ t: number }>(sql, { symbol, from: Math.ceil(w.fromMs), to: Math.floor(w.toMs), after, limit: page });
    for (const r of rows) yield r.t;
    const last = rows[rows.length - 1];
    if (rows.length < page || last === undefined) return;
    after = last.t;
  }
}

async function* levelsItems(store: Store, channel: Channel, w: ReplayWindow, page: number): AsyncGenerator<ReplayItem<ReplayData>> {
  for await (const t of instants(store, LEVEL_INSTANTS, channel.symbol, w, page)) {
    const rows = await rowsAt(store, channel.symbol, t);
    if (rows.length === 0) continue;
    yield { atMs: t, value: levelsNotification({ meta: metaOf(channel.symbol, t, rows), rows }, channel) };
  }
}

async function* chainItems(store: Store, channel: Channel, w: ReplayWindow, page: number): AsyncGenerator<ReplayItem<ReplayData>> {
  let prev: ReturnType<typeof chainViewOf> | null = null;
  for await (const t of instants(store, CHAIN_INSTANTS, channel.symbol, w, page)) {
    const rows = await servedChainRowsAt(store, channel.symbol, { t, table: 'option_chain_snapshots' });
    if (rows.length === 0) continue;
    const view = chainViewOf(channel, t, rows);
    yield { atMs: t, value: prev === null ? snapshotJson(channel, view) : changesJson(channel, prev, view) };
    prev = view;
  }
}

/** The stored history of one channel over the window; `page` bounds each store read (tests use small pages). */
export function replaySource(store: Store, channel: Channel, w: ReplayWindow, page = REPLAY_PAGE): ReplaySource<ReplayData> {
  const items =
    channel.kind === 'tape'
      ? tapeItems(store, channel.symbol, w, page)
      : channel.kind === 'levels'
        ? levelsItems(store, channel, w, page)
        : chainItems(store, channel, w, page);
  return { channel: channel.name, items };
}
