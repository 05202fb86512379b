/**
 * Open interest by expiry (/v2/options/oi/by-expiry) from the stored chain rows of one tick: per expiry instant the
 * call and put OI (coins, summed over venues), their USD notional (coins × the tick's spot), the put/call OI ratio
 * (null when the call OI is 0), and the expiry's max pain (max-pain.ts on that expiry's OI by strike, all venues
 * of the selection); per venue the same OI figures. Totals over every expiry. Pure.
 */
import type { OptionType } from '#schemas/events.ts';
import { maxPain } from './max-pain.ts';
import type { MaxPain } from './max-pain.ts';

export interface OiRow {
  readonly venue: string;
  readonly expiry: number;
  readonly strike: number;
  readonly option_type: OptionType;
  readonly open_interest: number;
}

export interface OiFigures {
  readonly call_oi: number;
  readonly put_oi: number;
  readonly total_oi: number;
  readonly call_oi_usd: number;
  readonly put_oi_usd: number;
  readonly total_oi_usd: number;
  readonly put_call_ratio: number | null;
}

export interface ExpiryOi extends OiFigures {
  readonly expiry: number;
  readonly max_pain: MaxPain | null;
  readonly exchanges: readonly ({ readonly venue: string } & OiFigures)[];
}

export interface OiByExpiry {
  readonly expiries: readonly ExpiryOi[];
  readonly totals: OiFigures;
}

export function oiFigures(rows: readonly OiRow[], spot: number): OiFigures {
  let call = 0;
  let put = 0;
  for (const r of rows) {
    if (r.option_type === 'call') call += r.open_interest;
    else put += r.open_interest;
  }
  return {
    call_oi: call,
    put_oi: put,
    total_oi: call + put,
    call_oi_usd: call * spot,
    put_oi_usd: put * spot,
    total_oi_usd: (call + put) * spot,
    put_call_ratio: call > 0 ? put / call : null,
  };
}

function maxPainOf(rows: readonly OiRow[]): MaxPain | null {
  const strikes = [...new Set(rows.map((r) => r.strike))].sort((a, b) => a - b);
  const at = new Map(strikes.map((k, i) => [k, i]));
  const calls = strikes.map(() => 0);
  const puts = strikes.map(() => 0);
  for (const r of rows) {
    const i = at.get(r.strike) as number;
    if (r.option_type === 'call') calls[i] = (calls[i] ?? 0) + r.open_interest;
    else puts[i] = (puts[i] ?? 0) + r.open_interest;
  }
  return maxPain(strikes, calls, puts);
}

function byKey<T>(rows: readonly T[], key: (r: T) => string | number): Map<string | number, T[]> {
  const m = new Map<string | number, T[]>();
  for (const r of rows) {
    const k = key(r);
    const g = m.get(k);
    if (g === undefined) m.set(k, [r]);
    else g.push(r);
  }
  return m;
}

export function oiByExpiry(rows: readonly OiRow[], spot: number): OiByExpiry {
  const expiries = [...byKey(rows, (r) => r.expiry).entries()]
    .sort((a, b) => (a[0] as number) - (b[0] as number))
    .map(([expiry, group]) => ({
      expiry: expiry as number,
      ...oiFigures(group, spot),
      max_pain: maxPainOf(group),
      exchanges: [...byKey(group, (r) => r.venue).entries()]
        .sort((a, b) => (a[0] < b[0] ? -1 : 1))
        .map(([venue, g]) => ({ venue: venue as string, ...oiFigures(g, spot) })),
    }));
  return { expiries, totals: oiFigures(rows, spot) };
}
