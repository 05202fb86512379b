/**
 * OKX v5 instIds: options BTC-USD-241227-100000-C (family BTC-USD, or BTC-USD_UM), perps BTC-USDT-SWAP,
 * futures BTC-USD-250808, spot BTC-USDT, index BTC-USD.
 */
import { expiryFromYymmdd, optionTypeFrom, strikeFrom } from '../../connector/option-names.ts';
import type { InstrumentKind, OptionType } from '#schemas/events.ts';

export interface OkxName {
  readonly kind: InstrumentKind;
  readonly base: string;
  /** 'USD', 'USD_UM', 'USDT', 'USDC'. */
  readonly quote: string;
  readonly family: string;
  readonly expiry: number | null;
  readonly strike: number | null;
  readonly optionType: OptionType | null;
}

export function parseOkxName(instId: string): OkxName | null {
  const p = instId.split('-');
  const base = p[0] ?? '';
  const quote = p[1] ?? '';
  if (base === '' || quote === '') return null;
  const family = `${base}-${quote}`;
  if (p.length === 2) return { kind: 'spot', base, quote, family, expiry: null, strike: null, optionType: null };
  if (p.length === 3 && p[2] === 'SWAP') return { kind: 'perp', base, quote, family, expiry: null, strike: null, optionType: null };
  const expiry = expiryFromYymmdd(p[2] ?? '');
  if (expiry === null) return null;
  if (p.length === 3) return { kind: 'future', base, quote, family, expiry, strike: null, optionType: null };
  if (p.length !== 5) return null;
  const strike = strikeFrom(p[3] ?? '');
  const optionType = optionTypeFrom(p[4] ?? '');
  if (strike === null || optionType === null) return null;
  return { kind: 'option', base, quote, family, expiry, strike, optionType };
}
