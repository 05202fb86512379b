/** Fixed rate-limit windows, aligned to UTC: the minute and the calendar month. Pure. */

export interface MinuteWindow {
  /** Start of the minute, ms. */
  readonly start: number;
  /** Start of the next minute, ms. */
  readonly end: number;
}

export interface MonthWindow {
  /** YYYYMM, e.g. 202610. */
  readonly month: number;
  readonly start: number;
  /** 00:00:00 UTC on the first day of the next month, ms. */
  readonly end: number;
}

// The last window computed of each kind: every request of a minute (a month) asks for the same one.
let lastMinute: MinuteWindow = { start: 0, end: 0 };
let lastMonth: MonthWindow = { month: 0, start: 0, end: 0 };

export function minuteWindow(now: number): MinuteWindow {
  if (now >= lastMinute.start && now < lastMinute.end) return lastMinute;
  const start = Math.floor(now / 60_000) * 60_000;
  lastMinute = { start, end: start + 60_000 };
  return lastMinute;
}

export function monthWindow(now: number): MonthWindow {
  if (now >= lastMonth.start && now < lastMonth.end) return lastMonth;
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  lastMonth = { month: y * 100 + m + 1, start: Date.UTC(y, m, 1), end: Date.UTC(y, m + 1, 1) };
  return lastMonth;
}

/** Whole seconds from `now` until `end`, at least 1 (a Retry-After of 0 invites a hot loop). */
export function secondsUntil(now: number, end: number): number {
  return Math.max(1, Math.ceil((end - now) / 1000));
}

export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);
