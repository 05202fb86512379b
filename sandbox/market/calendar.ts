/** Option expiry calendars (08:00 UTC by default; Delta 12:00 UTC) and the venues' date spellings. Pure. */

const DAY_MS = 86_400_000;
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;

export interface CalendarPolicy {
  readonly dailies: number;
  readonly weeklies: number;
  readonly monthlies: number;
  readonly quarterlies: number;
}

function atHour(y: number, m: number, d: number, hour: number): number {
  return Date.UTC(y, m, d, hour, 0, 0, 0);
}

function lastFriday(y: number, m: number, hour: number): number {
  const last = new Date(Date.UTC(y, m + 1, 0));
  const back = (last.getUTCDay() - 5 + 7) % 7;
  return atHour(y, m, last.getUTCDate() - back, hour);
}

/** Live expiries at `nowMs` (strictly after now), ascending, deduplicated; expiring at `hourUtc` (default 08:00). */
export function listExpiries(nowMs: number, p: CalendarPolicy, hourUtc = 8): readonly number[] {
  const out = new Set<number>();
  const d = new Date(nowMs);
  let day = atHour(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), hourUtc);
  if (day <= nowMs) day += DAY_MS;
  for (let i = 0; i < p.dailies; i++) out.add(day + i * DAY_MS);
  let fri = day;
  while (new Date(fri).getUTCDay() !== 5) fri += DAY_MS;
  for (let i = 0; i < p.weeklies; i++) out.add(fri + i * 7 * DAY_MS);
  let y = d.getUTCFullYear();
  let m = d.getUTCMonth();
  let monthly = 0;
  let quarterly = 0;
  for (let i = 0; i < 24 && (monthly < p.monthlies || quarterly < p.quarterlies); i++) {
    const lf = lastFriday(y, m, hourUtc);
    if (lf > nowMs) {
      if (monthly < p.monthlies) {
        out.add(lf);
        monthly++;
      } else if (m % 3 === 2 && quarterly < p.quarterlies) {
        out.add(lf);
        quarterly++;
      }
    }
    m++;
    if (m === 12) {
      m = 0;
      y++;
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** Deribit/Bybit style: 27DEC24, 5JUN20 (no zero padding). */
export function dmmmyy(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()}${MONTHS[d.getUTCMonth()]}${String(d.getUTCFullYear() % 100).padStart(2, '0')}`;
}

/** OKX/Binance style: 241227. */
export function yymmdd(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getUTCFullYear() % 100).padStart(2, '0')}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
}

/** Derive / Bullish style: 20241227. */
export function yyyymmdd(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
}

/** Delta style: 271224 (ddMMyy). */
export function ddmmyy(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getUTCDate()).padStart(2, '0')}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCFullYear() % 100).padStart(2, '0')}`;
}
