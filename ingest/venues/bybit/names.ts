/**
 * Bybit V5 names: options BTC-28APR23-29500-C (USDC-settled) and ETH-25JUN27-7000-P-USDT (USDT-settled);
 * linear perps BTCUSDT / BTCPERP (USDC perp); spot BTCUSDT. Inverse BTCUSD and dated futures are not tracked.
 */
import { expiryFromDmmmyy, optionTypeFrom, strikeFrom } from '../../connector/option-names.ts';
import type { OptionType } from '#schemas/events.ts';

export interface BybitOptionName {
  readonly base: string;
  readonly settle: 'USDC' | 'USDT';
  readonly expiry: number;
  readonly strike: number;
  readonly optionType: OptionType;
}

export function parseBybitOptionName(name: string): BybitOptionName | null {
  const parts = name.split('-');
  if (parts.length !== 4 && !(parts.length === 5 && (parts[4] === 'USDT' || parts[4] === 'USDC'))) return null;
  const base = parts[0] ?? '';
  const expiry = expiryFromDmmmyy(parts[1] ?? '');
  const strike = strikeFrom(parts[2] ?? '');
  const optionType = optionTypeFrom(parts[3] ?? '');
  if (!/^[A-Z0-9]+$/.test(base) || expiry === null || strike === null || optionType === null) return null;
  return { base, settle: parts[4] === 'USDT' ? 'USDT' : 'USDC', expiry, strike, optionType };
}

/** Base coin of a linear perp / spot pair name ('BTCUSDT' -> 'BTC', 'BTCPERP' -> 'BTC'), else null. */
export function bybitLinearBase(name: string): { readonly base: string; readonly quote: string } | null {
  const m = /^([A-Z0-9]+?)(USDT|USDC|PERP)$/.exec(name);
  if (m === null) return null;
  return { base: m[1] ?? '', quote: m[2] === 'PERP' ? 'USDC' : (m[2] ?? '') };
}
