/** Shared result shape of the reference-data parsers (COT, 13F, ETF flows): pure, no I/O. */

/** A row that failed validation: the whole file is refused by the loader (never half-loaded). */
export interface RowError {
  readonly file: string;
  /** 1-based line of the source file (for XML: the line where the element starts). */
  readonly line: number;
  readonly message: string;
}

/** A row deliberately not loaded (a known defect of the source), reported, never silent. */
export interface SkippedRow {
  readonly file: string;
  readonly line: number;
  readonly reason: string;
}

export interface ParseResult<T> {
  readonly rows: T[];
  readonly errors: RowError[];
  readonly skipped: SkippedRow[];
}

/** Strict decimal number (optionally signed, optional fraction), else null. */
export function decimal(text: string): number | null {
  const t = text.trim();
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : null;
}

/** Calendar-valid YYYY-MM-DD, else null. */
export function isoDate(text: string): string | null {
  const t = text.trim();
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (m === null) return null;
  const d = new Date(`${t}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== t ? null : t;
}
