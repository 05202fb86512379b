/**
 * The tape replay's read windows (tape-window.ts): hand-computed windows, and a simulated store read (keyset cursor,
 * window, a page of rows) over trades with bursts at one instant, quiet stretches and both ends of the replay's
 * window: every trade read once, in order, and nothing outside the window.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIRST_TAPE_SPAN_MS, firstTapeWindow, nextTapeWindow, type TapeReadOutcome, type TapeWindow } from './tape-window.ts';

test('firstTapeWindow: FIRST_TAPE_SPAN_MS from the start, whole milliseconds inside the window', () => {
  assert.equal(FIRST_TAPE_SPAN_MS, 60_000);
  assert.deepEqual(firstTapeWindow(1_000, 500_000), { lower: 1_000, upper: 60_999 });
  assert.deepEqual(firstTapeWindow(1_000.5, 2_000.7), { lower: 1_001, upper: 2_000 });
  assert.equal(firstTapeWindow(5.2, 5.9), null);
});

test('nextTapeWindow: after a full page, twice its span from its last trade; after a short one, the rest grown', () => {
  const read = (o: Partial<TapeReadOutcome>): TapeReadOutcome => ({
    lower: 1_000,
    upper: 60_999,
    rows: 10_000,
    more: true,
    lastTs: 31_000,
    ...o,
  });
  // A full page that took 30 s: the next 60 s from its last trade.
  assert.deepEqual(nextTapeWindow(read({}), 10_000_000, 10_000), { lower: 31_000, upper: 91_000 });
  // A full page at one instant: a window of 2 ms from it (the cursor moves through the instant).
  assert.deepEqual(nextTapeWindow(read({ lastTs: 1_000 }), 10_000_000, 10_000), { lower: 1_000, upper: 1_002 });
  // Clipped at the replay's end.
  assert.deepEqual(nextTapeWindow(read({}), 50_000.9, 10_000), { lower: 31_000, upper: 50_000 });
  // A short read: 2,500 of 10,000 -> 8x the 60 s window after it; 9,000 -> 2.22x; none -> 8x; a page and no more -> 2x.
  assert.deepEqual(nextTapeWindow(read({ rows: 2_500, more: false }), 10_000_000, 10_000), { lower: 61_000, upper: 540_999 });
  assert.deepEqual(nextTapeWindow(read({ rows: 9_000, more: false }), 10_000_000, 10_000), { lower: 61_000, upper: 194_333 });
  assert.deepEqual(nextTapeWindow(read({ rows: 0, more: false, lastTs: null }), 10_000_000, 10_000), { lower: 61_000, upper: 540_999 });
  assert.deepEqual(nextTapeWindow(read({ rows: 10_000, more: false }), 10_000_000, 10_000), { lower: 61_000, upper: 180_999 });
  assert.deepEqual(nextTapeWindow(read({ rows: 2_500, more: false }), 100_000, 10_000), { lower: 61_000, upper: 100_000 });
  // A short read that reached the end: done.
  assert.equal(nextTapeWindow(read({ rows: 5, more: false }), 60_999.5, 10_000), null);
  assert.equal(nextTapeWindow(read({ rows: 5, more: false, upper: 70_000 }), 65_000, 10_000), null);
});

interface Trade {
  readonly ts: number;
  readonly id: number;
}

/** The store's read: the first `page` trades after the cursor with lower <= ts <= upper, and whether more were there. */
function storeRead(trades: readonly Trade[], w: TapeWindow, cursor: Trade | null, page: number): { rows: Trade[]; more: boolean } {
  const after = (t: Trade): boolean => cursor === null || t.ts > cursor.ts || (t.ts === cursor.ts && t.id > cursor.id);
  const found = trades.filter((t) => t.ts >= w.lower && t.ts <= w.upper && after(t));
  return { rows: found.slice(0, page), more: found.length > page };
}

/** Every trade a replay of [fromMs, toMs] reads, in order, and the reads it made. */
function replay(trades: readonly Trade[], fromMs: number, toMs: number, page: number): { read: Trade[]; reads: number } {
  const read: Trade[] = [];
  let reads = 0;
  let cursor: Trade | null = null;
  let w = firstTapeWindow(fromMs, toMs);
  while (w !== null) {
    const r = storeRead(trades, w, cursor, page);
    reads++;
    assert.ok(reads < 10_000, 'the reads end');
    read.push(...r.rows);
    cursor = r.rows[r.rows.length - 1] ?? cursor;
    w = nextTapeWindow({ ...w, rows: r.rows.length, more: r.more, lastTs: r.rows.length > 0 ? (cursor?.ts ?? null) : null }, toMs, page);
  }
  return { read, reads };
}

test('the windows read every trade of the replay once, in order: bursts at one instant, quiet stretches, the ends', () => {
  // Trades in (ts, id) order: steady every 7 ms, a burst of 95 at one instant, a quiet day, trades every minute, a
  // second burst, then trades every second.
  const trades: Trade[] = [];
  let id = 0;
  for (let i = 0; i < 400; i++) trades.push({ ts: 10_000 + 7 * i, id: id++ });
  for (let i = 0; i < 95; i++) trades.push({ ts: 20_000, id: id++ });
  for (let i = 0; i < 300; i++) trades.push({ ts: 86_420_000 + 60_000 * i, id: id++ });
  for (let i = 0; i < 50; i++) trades.push({ ts: 104_500_000, id: id++ });
  for (let i = 0; i < 500; i++) trades.push({ ts: 104_500_001 + 1_000 * i, id: id++ });
  const last = trades[trades.length - 1] as Trade;
  for (const page of [1, 7, 40, 1_000]) {
    for (const [fromMs, toMs] of [
      [0, last.ts],
      [10_000, last.ts - 1],
      [20_000, 20_000],
      [12_345.5, 86_420_000 + 60_000 * 150],
      [200_000_000, 300_000_000],
    ] as const) {
      const expected = trades.filter((t) => t.ts >= Math.ceil(fromMs) && t.ts <= toMs);
      const { read, reads } = replay(trades, fromMs, toMs, page);
      assert.deepEqual(read, expected, `page ${page}, [${fromMs}, ${toMs}]`);
      // The reads stay near one a page (at most 1,625 for 1,344 one-trade pages here): a few more where the density
      // changes, five for an empty window of 100,000 s.
      assert.ok(reads <= 1.25 * Math.ceil(expected.length / page) + 10, `page ${page}, [${fromMs}, ${toMs}]: ${reads} reads`);
    }
  }
});
