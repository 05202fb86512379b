/**
 * The opaque /v2/tape cursor: base64url of the position after the last row served, (ts, venue, id) — the
 * option_trades sort key, unique per trade after deduplication — plus the order it was issued for. The next
 * page is the rows strictly after that key in the same order, so pages never overlap or skip a row even while
 * new trades arrive. Pure.
 */

export type TapeOrder = 'asc' | 'desc';

export interface TapeCursor {
  readonly ts: number;
  readonly venue: string;
  readonly id: string;
  readonly order: TapeOrder;
}

export function encodeCursor(c: TapeCursor): string {
  return Buffer.from(JSON.stringify([c.ts, c.venue, c.id, c.order]), 'utf8').toString('base64url');
}

/** null when the text is not a cursor this API issued (any shape or type mismatch). */
export function decodeCursor(text: string): TapeCursor | null {
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(text)) return null;
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(v) || v.length !== 4) return null;
  const [ts, venue, id, order] = v as unknown[];
  if (typeof ts !== 'number' || !Number.isSafeInteger(ts) || ts < 0) return null;
  if (typeof venue !== 'string' || typeof id !== 'string' || venue.length > 64 || id.length > 512) return null;
  if (order !== 'asc' && order !== 'desc') return null;
  return { ts, venue, id, order };
}
