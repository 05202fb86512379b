/** Option expiry calendars (all venues here expire at 08:00 UTC) and the venues' date spellings. Pure. */

const DAY_MS = 86_400_000;
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;

export interface CalendarPolicy {
  readonly dailies: number;
  readonly weeklies: number;
  readonly monthlies: number;
  readonly quarterlies: number;
}

function at8(y: number, m: number, d: number): number {
  return Date.UTC(y, m, d, 8, 0, 0, 0);
}

function lastFriday(y: number, m: number): number {
  const last = new Date(Date.UTC(y, m + 1, 0));
  const back = (last.getUTCDay() - 5 + 7) % 7;
  return at8(y, m, last.getUTCDate() - back);
}

/** Live expiries at `nowMs` (strictly after now), ascending, deduplicated. */
export function listExpiries(nowMs: number, p: CalendarPolicy): readonly number[] {
  const out = new Set<number>();
  const d = new Date(nowMs);
  let day = at8(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
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
    const lf = lastFriday(y, m);
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
