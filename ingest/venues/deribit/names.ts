/**
 * Deribit instrument names: BTC-27DEC24-100000-C (inverse option), SOL_USDC-27MAR26-150-C (linear USDC option),
 * MATIC_USDC-9MAR24-1d02-C ('d' = decimal point), BTC-PERPETUAL / SOL_USDC-PERPETUAL, BTC-27DEC24 (future).
 * Combos (BTC-FS-…, BTC-CS-…, BTC-STRD-…) are recognised so they can be skipped.
 */
import { expiryFromDmmmyy, optionTypeFrom, strikeFrom } from '../../connector/option-names.ts';
import type { InstrumentKind, OptionType } from '#schemas/events.ts';

export interface DeribitName {
  readonly kind: InstrumentKind | 'combo';
  /** Base coin ('BTC', 'SOL'). */
  readonly base: string;
  /** 'USDC' for linear `X_USDC-…` instruments, null for inverse (coin-margined) ones. */
  readonly linearQuote: string | null;
  readonly expiry: number | null;
  readonly strike: number | null;
  readonly optionType: OptionType | null;
}

export function parseDeribitName(name: string): DeribitName | null {
  const parts = name.split('-');
  const head = parts[0];
  if (head === undefined || head === '') return null;
  const us = head.indexOf('_');
  const base = us === -1 ? head : head.slice(0, us);
  const linearQuote = us === -1 ? null : head.slice(us + 1);
  if (!/^[A-Z0-9]+$/.test(base)) return null;
  const second = parts[1] ?? '';
  if (parts.length === 2 && second === 'PERPETUAL') {
    return { kind: 'perp', base, linearQuote, expiry: null, strike: null, optionType: null };
  }
  const expiry = expiryFromDmmmyy(second);
  if (expiry === null) {
    return /^[A-Z]+\d*$/.test(second) && parts.length >= 3
      ? { kind: 'combo', base, linearQuote, expiry: null, strike: null, optionType: null }
      : null;
  }
  if (parts.length === 2) return { kind: 'future', base, linearQuote, expiry, strike: null, optionType: null };
  if (parts.length !== 4) return null;
  const strike = strikeFrom(parts[2] ?? '');
  const optionType = optionTypeFrom(parts[3] ?? '');
  if (strike === null || optionType === null) return null;
  return { kind: 'option', base, linearQuote, expiry, strike, optionType };
}

/** Deribit index name for an instrument's base: 'btc_usd' (inverse) or 'sol_usdc' (linear). */
export function indexNameFor(base: string, linearQuote: string | null): string {
  return `${base.toLowerCase()}_${(linearQuote ?? 'usd').toLowerCase()}`;
}
