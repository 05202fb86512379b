const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;

/** Deribit-style expiry token of a UTC instant: 27DEC24, 3JAN25 (day without a leading zero). */
export function expiryToken(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()}${MONTHS[d.getUTCMonth()] ?? ''}${String(d.getUTCFullYear() % 100).padStart(2, '0')}`;
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Days to expiry, 2 decimals. */
export function daysToExpiry(expiryMs: number, now: number): number {
  return Math.round(((expiryMs - now) / 86_400_000) * 100) / 100;
}
