/**
 * Derive (v3) instrument names: options `BTC-20261225-100000-C` (YYYYMMDD; a fractional strike uses `_`, e.g.
 * `2400_5`), perps `BTC-PERP`, spot `ETH-USDC`. Options expire at 08:00 UTC by default; the listing's
 * `option_details.expiry` (seconds) wins when present.
 */
import type { InstrumentKind, OptionType } from '#schemas/events.ts';

export interface DeriveName {
  readonly kind: InstrumentKind;
  readonly base: string;
  readonly expiry: number | null;
  readonly strike: number | null;
  readonly optionType: OptionType | null;
}

function expiryFromYyyymmdd(s: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(s);
  if (m === null) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const ms = Date.UTC(y, mo, d, 8);
  const back = new Date(ms);
  return back.getUTCMonth() === mo && back.getUTCDate() === d ? ms : null;
}

export function parseDeriveName(name: string): DeriveName | null {
  const p = name.split('-');
  const base = p[0] ?? '';
  if (base === '') return null;
  if (p.length === 2) return { kind: p[1] === 'PERP' ? 'perp' : 'spot', base, expiry: null, strike: null, optionType: null };
  if (p.length !== 4) return null;
  const expiry = expiryFromYyyymmdd(p[1] ?? '');
  const strikeText = (p[2] ?? '').replace('_', '.');
  const strike = /^\d+(\.\d+)?$/.test(strikeText) ? Number(strikeText) : NaN;
  const t = p[3];
  const optionType = t === 'C' ? 'call' : t === 'P' ? 'put' : null;
  if (expiry === null || !(strike > 0) || optionType === null) return null;
  return { kind: 'option', base, expiry, strike, optionType };
}
