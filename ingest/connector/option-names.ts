/**
 * Expiry-date and strike pieces of venue instrument names (name-parsing fallback when no REST listing is
 * loaded). All four venues here expire options at 08:00 UTC.
 */
const MONTHS: Readonly<Record<string, number>> = {
  JAN: 0,
  FEB: 1,
  MAR: 2,
  APR: 3,
  MAY: 4,
  JUN: 5,
  JUL: 6,
  AUG: 7,
  SEP: 8,
  OCT: 9,
  NOV: 10,
  DEC: 11,
};

export const EXPIRY_HOUR_UTC = 8;

function at0800(year: number, month: number, day: number): number | null {
  if (month < 0 || month > 11 || day < 1 || day > 31) return null;
  const ms = Date.UTC(year, month, day, EXPIRY_HOUR_UTC);
  return new Date(ms).getUTCDate() === day ? ms : null;
}

/** '27DEC24' or '5JUN20' (Deribit, Bybit: day without zero padding) -> 08:00 UTC ms. */
export function expiryFromDmmmyy(s: string): number | null {
  const m = /^(\d{1,2})([A-Z]{3})(\d{2})$/.exec(s);
  if (m === null) return null;
  const month = MONTHS[m[2] ?? ''];
  if (month === undefined) return null;
  return at0800(2000 + Number(m[3]), month, Number(m[1]));
}

/** '241227' (OKX, Binance) -> 08:00 UTC ms. */
export function expiryFromYymmdd(s: string): number | null {
  const m = /^(\d{2})(\d{2})(\d{2})$/.exec(s);
  if (m === null) return null;
  return at0800(2000 + Number(m[1]), Number(m[2]) - 1, Number(m[3]));
}

/** '100000', '2.05', or Deribit's '1d02' (d = decimal point) -> strike. */
export function strikeFrom(s: string): number | null {
  if (!/^\d+([.d]\d+)?$/.test(s)) return null;
  const n = Number(s.replace('d', '.'));
  return Number.isFinite(n) && n > 0 ? n : null;
}

export function optionTypeFrom(s: string): 'call' | 'put' | null {
  if (s === 'C' || s === 'CALL' || s === 'Call' || s === 'call') return 'call';
  if (s === 'P' || s === 'PUT' || s === 'Put' || s === 'put') return 'put';
  return null;
}
