/**
 * The windows the tape replay reads the store in. Each read asks for the next page of trades after the keyset cursor
 * within a window [lower, upper] of trade instants (ms, both included) that starts where the previous read left off
 * and spans about twice what the previous page took: the engine's read (option_trades FINAL) then costs what the
 * window holds, not what the rest of the replay's window holds (1.5 M trades of 4 M stored, pages of 10,000: 3.0-3.2 s
 * bounded against 4.7-4.9 s up to the replay's end, the engine's CPU 1.3 against 3.0-3.3 s; bench/RESULTS.md
 * "replay"). A read that finds fewer trades than a page has read its whole window: the next starts after it, longer
 * by how far the page fell short, so a quiet stretch costs a few reads at most. Pure.
 */

/** Trade instants of one read, ms UTC, both included. */
export interface TapeWindow {
  readonly lower: number;
  readonly upper: number;
}

/** What a read in a window found: trades served (at most a page), whether more were there, the last one's instant. */
export interface TapeReadOutcome extends TapeWindow {
  readonly rows: number;
  readonly more: boolean;
  readonly lastTs: number | null;
}

/** Span of the first read (the density of the replay's first minutes is not known yet). */
export const FIRST_TAPE_SPAN_MS = 60_000;
/** The most a window grows after a read that found fewer trades than a page. */
const MAX_GROWTH = 8;

/** The first read of a replay of [fromMs, toMs]; null when the window holds no instant. */
export function firstTapeWindow(fromMs: number, toMs: number): TapeWindow | null {
  const lower = Math.ceil(fromMs);
  const end = Math.floor(toMs);
  return lower > end ? null : { lower, upper: Math.min(end, lower + FIRST_TAPE_SPAN_MS - 1) };
}

/** The read after `prev` in a replay ending at `toMs`; null when `prev` read to the end. */
export function nextTapeWindow(prev: TapeReadOutcome, toMs: number, page: number): TapeWindow | null {
  const end = Math.floor(toMs);
  if (prev.more && prev.lastTs !== null) {
    // The page filled before the window's end: the next read starts at its last trade's instant (the cursor skips the
    // trades read at that instant), twice the span the page took.
    const lower = prev.lastTs;
    return { lower, upper: Math.min(end, lower + 2 * Math.max(1, prev.lastTs - prev.lower)) };
  }
  if (prev.upper >= end) return null;
  // Every trade of the window was read: the next starts after it.
  const growth = prev.rows === 0 ? MAX_GROWTH : Math.min(MAX_GROWTH, Math.max(2, (2 * page) / prev.rows));
  const lower = prev.upper + 1;
  return { lower, upper: Math.min(end, lower + Math.ceil((prev.upper - prev.lower + 1) * growth) - 1) };
}
