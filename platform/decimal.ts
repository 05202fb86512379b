/**
 * Decimal arithmetic on doubles without strings, shared by the venue parsers' noise removal (ingest `clean`) and the
 * JSON byte writer's numbers (json-bytes.ts). Pure.
 *
 * The fact both rely on: a double that is the nearest double of a decimal of at most 15 significant digits is the
 * nearest double of no other such decimal (15 digits is what a double always keeps, DBL_DIG), so that decimal is the
 * shortest text that reads back as the double, which is what `Number.prototype.toString` writes. And for
 * 1e-6 <= a < 1e15, m = round(a * 10^f) with f = 14 - floor(log10(a)) is that decimal's digits when it exists, as
 * `m / 10^f === a` proves exactly: m < 2^53 and 10^f (f <= 22) are exact doubles and the division is correctly
 * rounded.
 */

/** 10^0 .. 10^22: the powers of ten a double holds exactly. */
export const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => Number(`1e${i}`));
/** 1e-6 .. 1e14, index i holding 10^(i - 6). */
const POW10_FROM_MINUS_6: readonly number[] = Array.from({ length: 21 }, (_, i) => Number(`1e${i - 6}`));

/** floor(log10(a)) for 1e-6 <= a < 1e15 by comparisons (may be one off within a rounding step of a power of ten). */
export function decimalExponent(a: number): number {
  let lo = -6;
  let hi = 14;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (a >= (POW10_FROM_MINUS_6[mid + 6] ?? 0)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
