/**
 * The stored history of each replay channel as a pull-based source (merge.ts) of chunks (a few hundred trades, a
 * read's levels instants, a chain instant), read from the store in bounded pages, one page ahead (read-ahead.ts: the
 * next page is read while the previous one is sent, so the store's reads overlap the serialization): at most two
 * pages (REPLAY_PAGE trades, or a read of snapshot rows of about LEVELS_READ_BYTES) are held per channel, and no
 * further page is read until the merge has taken the held ones.
 * - tape.{symbol}: the stored trades of the window in /v2/tape's ascending order (ts, venue, id; option_trades
 *   FINAL), each message the tape row (tape/tape-row.ts) at the trade time, rendered from the read's columns straight
 *   to bytes (tape/tape-row-bytes.ts), its free-text columns read as views of the result's bytes; each page read after
 *   the keyset cursor within a window of trade instants about twice the previous page's (tape-window.ts).
 * - levels.{symbol}[.venues]: every completed snapshot instant of the window (gex_levels), each message the live
 *   levels channel's data (ws/bus-source.ts levelsNotification) for the snapshot rows stored at that instant. The
 *   rows of consecutive instants are read in one query (processor-reads.ts levelRowsBetween: no heatmap cells), as many
 *   instants as fit in about LEVELS_READ_BYTES (sized from the previous read); each instant's rows (their packed
 *   levels, kept as bytes of the read until then) are decoded as it renders, and the read is released once rendered.
 * - chain.{symbol}[.venues]: every stored 30 s chain of the window (option_chain_snapshots, the finest tier, kept
 *   3 days), a `snapshot` message at the first instant, then one `changes` message per instant against the
 *   previous one, as the live chain channel sends them (ws/chain-feed.ts). One instant per read: each instant's
 *   chain (hundreds of rows a venue) and its trade figures (a 24 h window of its own) are read as the chain routes
 *   read them (options/chain-reads.ts servedChainRowsAt).
 */
import { msColumn, msParam } from '#clickhouse/epoch-ms.ts';
import type { Store } from '#clickhouse/store.ts';
import { levelRowsBetween, type LevelRows } from '#processors/snapshots/processor-reads.ts';
import { metaOf } from '#processors/snapshots/levels-step.ts';
import type { StoredSnapshotRow } from '#processors/snapshots/snapshot-record.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { servedChainRowsAt } from '../options/chain-reads.ts';
import { JsonBytes } from '#platform/json-bytes.ts';
import type { TapeCursor } from '../tape/cursor.ts';
import { readTapeResult } from '../tape/read.ts';
import { num } from '../tape/tape-columns.ts';
import { byteColumnsOf, TAPE_VIEWS, TapeRowWriter, viewText, type TapeByteColumns } from '../tape/tape-row-bytes.ts';
import { allTrades } from '../tape/filter.ts';
import { levelsNotification } from '../ws/bus-source.ts';
import { chainViewOf, changesJson, snapshotJson } from '../ws/chain-feed.ts';
import type { Channel } from '../ws/protocol.ts';
import type { ReplayData } from './data.ts';
import type { ReplayItem, ReplaySource } from './merge.ts';
import { readAhead } from './read-ahead.ts';
import { firstTapeWindow, nextTapeWindow, type TapeWindow } from './tape-window.ts';

/**
 * A page of the tape read (tape/read.ts readTapeResult), its columns (the free-text ones as views of its bytes), the
 * window it was read in (tape-window.ts) and the cursor it was read after.
 */
type TapePage = Awaited<ReturnType<typeof readTapeResult>> & {
  readonly columns: TapeByteColumns;
  readonly window: TapeWindow;
  readonly cursor: TapeCursor | null;
};

/**
 * Trades or snapshot instants read per store query. A tape page costs ~14 ms of fixed engine time (option_trades
 * FINAL) plus ~0.6 µs a trade: 1 M trades read in pages of 5,000 / 10,000 / 20,000 took 3.1-3.3 / 1.9 / 1.4-1.5 s.
 * 10,000 holds ~2.5 MB a page (two per tape replay, with the read ahead); 20,000 grew the server's RSS under 20
 * concurrent replays by +385 MB against +151 MB at 5,000 (bench/RESULTS.md "replay").
 */
export const REPLAY_PAGE = 10_000;

/**
 * Snapshot rows read per store query for a levels channel, about (bytes of the rows read, mostly the packed levels,
 * ~34 KB a venue row, read as bytes: base64-decoded by the store). 2 MiB: reads of 4 MiB (then as JSON) were ~10-30 %
 * faster but held twice the memory per replay in the engine, the decoding and the result's crossing to the replay
 * thread (server RSS +80-140 MB during a levels replay, against +17-65 MB); 1 MiB cost another ~20 % (bench/RESULTS.md
 * "replay").
 */
export const LEVELS_READ_BYTES = 2 * 2 ** 20;
/** Trades rendered at a time from a tape page (a chunk of the tape source). */
const TAPE_CHUNK = 256;
/** Bytes of a tape chunk's buffer at first (~400 a trade; it grows if a chunk needs more). */
const TAPE_CHUNK_BYTES = TAPE_CHUNK * 512;
/** Instants of a levels channel's first read, before the size of an instant's rows is known. */
const FIRST_LEVELS_READ = 4;

/** The window of a replay, ms UTC, both ends included. */
export interface ReplayWindow {
  readonly fromMs: number;
  readonly toMs: number;
}

async function* tapeChunks(store: Store, symbol: MarketSymbol, w: ReplayWindow, page: number): AsyncGenerator<ReplayItem<ReplayData>[]> {
  const options = { views: TAPE_VIEWS };
  const read = async (previous: TapePage | null): Promise<TapePage | null> => {
    let cursor: TapeCursor | null = null;
    let window: TapeWindow | null;
    if (previous === null) window = firstTapeWindow(w.fromMs, w.toMs);
    else {
      const { columns: c, rows } = previous;
      const i = rows - 1;
      const last: TapeCursor | null =
        i >= 0 ? { ts: num(c.ts_ms, i), venue: c.venue_s.values[i] ?? '', id: viewText(c.id, i), order: 'asc' } : null;
      cursor = last ?? previous.cursor;
      window = nextTapeWindow({ ...previous.window, rows, more: previous.more, lastTs: last?.ts ?? null }, w.toMs, page);
    }
    if (window === null) return null;
    const r = await readTapeResult(store, allTrades(symbol, window.lower, window.upper), 'asc', page, cursor, options);
    return { ...r, columns: byteColumnsOf(r.result), window, cursor };
  };
  const writer = new TapeRowWriter(symbol);
  // One buffer for every chunk: a chunk's data is rendered into it once the previous chunk has been taken whole
  // (data.ts EncodedData), so a replay's tape holds one chunk's bytes, and makes no string per trade.
  const out = new JsonBytes(TAPE_CHUNK_BYTES);
  for await (const p of readAhead(read)) {
    const c = p.columns;
    try {
      for (let first = 0; first < p.rows; first += TAPE_CHUNK) {
        const n = Math.min(TAPE_CHUNK, p.rows - first);
        const chunk = new Array<ReplayItem<ReplayData>>(n);
        out.reset();
        for (let k = 0; k < n; k++) {
          const i = first + k;
          const start = out.pos;
          out.allAscii = true;
          writer.write(out, c, i);
          chunk[k] = { atMs: num(c.ts_ms, i), value: { bytes: out.buf, start, end: out.pos, ascii: out.allAscii } };
        }
        yield chunk;
      }
    } finally {
      // Rendered: the read's bytes are freed now (the replay thread's store), not at the next collection.
      store.releaseColumns(p.result);
    }
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

/** The rows of each instant of a read: [first, end) row indices (rows come in instant order). */
function rangesByInstant(rows: LevelRows): Map<number, readonly [number, number]> {
  const out = new Map<number, readonly [number, number]>();
  for (let i = 0; i < rows.rows;) {
    const t = rows.computedAt[i] as number;
    let end = i + 1;
    while (end < rows.rows && rows.computedAt[end] === t) end++;
    out.set(t, [i, end]);
    i = end;
  }
  return out;
}

/**
 * One read of a levels channel: instants, the rows stored for them (records made as each instant renders), the rows
 * of each instant, and the instants per read that fit LEVELS_READ_BYTES.
 */
interface LevelsPage {
  readonly instants: readonly number[];
  readonly rows: LevelRows;
  readonly byInstant: Map<number, readonly [number, number]>;
  readonly perRead: number;
}

async function* levelsChunks(store: Store, channel: Channel, w: ReplayWindow, page: number): AsyncGenerator<ReplayItem<ReplayData>[]> {
  const { symbol } = channel;
  const listed = instants(store, LEVEL_INSTANTS, symbol, w, page);
  const read = async (previous: LevelsPage | null): Promise<LevelsPage | null> => {
    const group: number[] = [];
    for (let n = previous?.perRead ?? Math.min(page, FIRST_LEVELS_READ); group.length < n;) {
      const t = await listed.next();
      if (t.done === true) break;
      group.push(t.value);
    }
    if (group.length === 0) return null;
    const rows = await levelRowsBetween(store, symbol, group[0] as number, group[group.length - 1] as number);
    const byInstant = rangesByInstant(rows);
    const perRead =
      byInstant.size === 0
        ? (previous?.perRead ?? group.length)
        : Math.max(1, Math.min(page, Math.floor(LEVELS_READ_BYTES / (rows.bytes / byInstant.size))));
    return { instants: group, rows, byInstant, perRead };
  };
  for await (const p of readAhead(read)) {
    const chunk: ReplayItem<ReplayData>[] = [];
    try {
      for (const t of p.instants) {
        // Rows at an instant the list does not name (an incomplete cycle between two completed ones) come with the range, unsent.
        const range = p.byInstant.get(t);
        if (range === undefined) continue;
        p.byInstant.delete(t);
        const rows: StoredSnapshotRow[] = [];
        for (let i = range[0]; i < range[1]; i++) rows.push(p.rows.row(i));
        chunk.push({ atMs: t, value: levelsNotification({ meta: metaOf(symbol, t, rows), rows }, channel) });
      }
    } finally {
      // Rendered: the read's bytes are freed now (the replay thread's store), not at the next collection.
      p.rows.release();
    }
    yield chunk;
  }
}

async function* chainChunks(store: Store, channel: Channel, w: ReplayWindow, page: number): AsyncGenerator<ReplayItem<ReplayData>[]> {
  let prev: ReturnType<typeof chainViewOf> | null = null;
  for await (const t of instants(store, CHAIN_INSTANTS, channel.symbol, w, page)) {
    const rows = await servedChainRowsAt(store, channel.symbol, { t, table: 'option_chain_snapshots' });
    if (rows.length === 0) continue;
    const view = chainViewOf(channel, t, rows);
    yield [{ atMs: t, value: prev === null ? snapshotJson(channel, view) : changesJson(channel, prev, view) }];
    prev = view;
  }
}

/** The stored history of one channel over the window; `page` bounds each store read (tests use small pages). */
export function replaySource(store: Store, channel: Channel, w: ReplayWindow, page = REPLAY_PAGE): ReplaySource<ReplayData> {
  const chunks =
    channel.kind === 'tape'
      ? tapeChunks(store, channel.symbol, w, page)
      : channel.kind === 'levels'
        ? levelsChunks(store, channel, w, page)
        : chainChunks(store, channel, w, page);
  return { channel: channel.name, chunks };
}
