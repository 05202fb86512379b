/**
 * The bounds of the replay bench (bench/replay.ts), measured in the same run, in the server's process, without a
 * stream or a client:
 * - bareLevels: the snapshot rows of every instant of the window read by the levels replay's own SQL
 *   (processor-reads.ts levelRowsBetween: no heatmap cells, the packed levels decoded from base64 by the store and left as
 *   bytes of the result) in the replay's read sizes (LEVELS_READ_BYTES of rows a read), and the narrower column-wise read
 *   of the one column the levels need (venue, t, the packed levels through Native);
 * - bareTape: the tape replay's page reads (query-api/tape/read.ts readTapeEntries, REPLAY_PAGE trades a page, keyset cursor,
 *   each page read in the window the replay reads it in: query-api/replay/tape-window.ts).
 */
import { msInt64, msParam } from '#clickhouse/epoch-ms.ts';
import type { Store } from '#clickhouse/store.ts';
import { levelRowsBetween } from '#processors/snapshots/processor-reads.ts';
import { LEVELS_READ_BYTES, REPLAY_PAGE } from '#query-api/replay/sources.ts';
import { firstTapeWindow, nextTapeWindow } from '#query-api/replay/tape-window.ts';
import type { TapeCursor } from '#query-api/tape/cursor.ts';
import { allTrades } from '#query-api/tape/filter.ts';
import { readTapeEntries } from '#query-api/tape/read.ts';
import { INTERVAL } from './replay-fill.ts';

export interface BareRead {
  readonly ms: number;
  /** Instants (levels) or trades (tape) read. */
  readonly units: number;
  readonly rows: number;
  readonly pieces: number;
  /** Instants or trades a read. */
  readonly perPiece: number;
  readonly perSecond: number;
  /** The levels column alone through Native, same reads (levels only). */
  readonly narrow: { readonly ms: number; readonly perSecond: number } | null;
}

const NARROW_SQL = `SELECT venue, ${msInt64('computed_at')} AS t, base64Decode(levels_pack) AS levels_bytes FROM gex_snapshots
WHERE symbol = 'BTCUSDT' AND computed_at >= ${msParam('from')} AND computed_at <= ${msParam('to')}
ORDER BY computed_at, venue LIMIT 1 BY computed_at, venue`;

/** Every instant of [start, end] (ticks INTERVAL apart), read as the levels replay reads them. */
export async function bareLevels(store: Store, start: number, end: number): Promise<BareRead> {
  const sample = await levelRowsBetween(store, 'BTCUSDT', start, start + 7 * INTERVAL);
  sample.release();
  const perInstant = sample.bytes / Math.max(1, new Set(sample.computedAt).size);
  const perPiece = Math.max(1, Math.min(REPLAY_PAGE, Math.floor(LEVELS_READ_BYTES / Math.max(1, perInstant))));
  const step = perPiece * INTERVAL;
  let rows = 0;
  let units = 0;
  let pieces = 0;
  let t0 = performance.now();
  for (let from = start; from <= end; from += step) {
    const read = await levelRowsBetween(store, 'BTCUSDT', from, Math.min(end, from + step - INTERVAL));
    rows += read.rows;
    units += new Set(read.computedAt).size;
    read.release();
    pieces++;
  }
  const ms = performance.now() - t0;
  t0 = performance.now();
  for (let from = start; from <= end; from += step)
    store.releaseColumns(
      await store.queryColumns(NARROW_SQL, { from, to: Math.min(end, from + step - INTERVAL) }, { views: ['levels_bytes'] }),
    );
  const narrowMs = performance.now() - t0;
  return {
    ms,
    units,
    rows,
    pieces,
    perPiece,
    perSecond: units / (ms / 1000),
    narrow: { ms: narrowMs, perSecond: units / (narrowMs / 1000) },
  };
}

/** Every trade of [start, end] in the tape replay's pages. */
export async function bareTape(store: Store, start: number, end: number): Promise<BareRead> {
  let cursor: TapeCursor | null = null;
  let units = 0;
  let pieces = 0;
  let window = firstTapeWindow(start, end);
  const t0 = performance.now();
  while (window !== null) {
    // As the replay reads (query-api/replay/sources.ts): each page in its window, after the cursor.
    const { entries, more } = await readTapeEntries(store, allTrades('BTCUSDT', window.lower, window.upper), 'asc', REPLAY_PAGE, cursor);
    units += entries.length;
    pieces++;
    const last = entries[entries.length - 1];
    if (last !== undefined) cursor = { ts: last.ts, venue: last.venue, id: last.id, order: 'asc' };
    window = nextTapeWindow({ ...window, rows: entries.length, more, lastTs: last?.ts ?? null }, end, REPLAY_PAGE);
  }
  const ms = performance.now() - t0;
  return { ms, units, rows: units, pieces, perPiece: REPLAY_PAGE, perSecond: units / (ms / 1000), narrow: null };
}
