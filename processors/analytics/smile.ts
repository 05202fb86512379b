/**
 * IV smile and term structure from the consolidated chain of one instant (chain-quotes.ts rows). Pure.
 *
 * Smile of an expiry (per venue, or consolidated over the selected venues):
 * - points: one per listed strike, from the out-of-the-money option (put below the forward, call at or above;
 *   the other type when only it is listed): log-moneyness ln(K/F), Black-76 delta at the point's own mark IV
 *   (call delta for calls, put delta for puts; r = 0, on F, T of the expiry), mark IV (OI-weighted over venues),
 *   bid / ask IV of the venues holding the best bid / ask (chain-quotes.ts rules).
 * - forward F: OI-weighted mean of the expiry's venue forwards.
 * - ATM IV: the expected-move rule (expected-move.ts atmIv): IV at K = F, linear in strike between the bracketing
 *   strikes, the IV at a strike being the mean of its call and put mark IVs; flat beyond the listed strikes.
 * - 25-delta call / put IV: linear in delta between the two neighbouring OTM calls (deltas bracketing +0.25) / OTM
 *   puts (bracketing −0.25); null when the smile does not span 0.25 on that side.
 * - risk reversal RR25 = IV(25Δ call) − IV(25Δ put); butterfly BF25 = (IV(25Δ call) + IV(25Δ put)) / 2 − ATM IV.
 * Term structure: ATM IV per listed expiry, and constant-maturity ATM IV at 1, 7, 30, 60, 90, 180 days by linear
 * interpolation of total variance σ²T between the bracketing expiries (the expected-move rule); shorter than the
 * front expiry: the front's σ (flat, methodology §6); longer than the last expiry: null (no extrapolation).
 */
import type { OptionType } from '#schemas/events.ts';
import { delta as bsDelta, pricingT, yearFraction } from './black76.ts';
import { consolidateContract, groupByContract, weightedMean } from './chain-quotes.ts';
import type { ChainQuoteRow, ConsolidatedQuote } from './chain-quotes.ts';
import { atmIv } from './expected-move.ts';

export const CONSTANT_MATURITY_DAYS = [1, 7, 30, 60, 90, 180] as const;
const DAY_YEARS = 1 / 365;

export interface SmilePointOut {
  readonly strike: number;
  readonly log_moneyness: number;
  readonly type: OptionType;
  readonly delta: number | null;
  readonly mark_iv: number | null;
  readonly bid_iv: number | null;
  readonly ask_iv: number | null;
}

export interface SmileCurve {
  readonly forward: number;
  readonly atm_iv: number | null;
  readonly iv_25d_call: number | null;
  readonly iv_25d_put: number | null;
  readonly rr_25d: number | null;
  readonly bf_25d: number | null;
  readonly points: readonly SmilePointOut[];
}

export interface ExpirySmile extends SmileCurve {
  readonly expiry: number;
  readonly t_years: number;
  readonly venues?: readonly ({ readonly venue: string } & SmileCurve)[];
}

const positive = (x: number | null): number | null => (x !== null && Number.isFinite(x) && x > 0 ? x : null);

/** IV at a target delta, linear in delta between the neighbours that bracket it (null when not spanned). */
export function ivAtDelta(points: readonly { readonly delta: number; readonly iv: number }[], target: number): number | null {
  const pts = [...points].sort((a, b) => a.delta - b.delta);
  for (let i = 1; i < pts.length; i++) {
    const lo = pts[i - 1] as { delta: number; iv: number };
    const hi = pts[i] as { delta: number; iv: number };
    if (lo.delta <= target && target <= hi.delta) {
      if (hi.delta === lo.delta) return (lo.iv + hi.iv) / 2;
      return lo.iv + ((hi.iv - lo.iv) * (target - lo.delta)) / (hi.delta - lo.delta);
    }
  }
  return null;
}

/** One expiry's smile from its consolidated contracts (any venue selection). */
export function smileCurve(contracts: readonly ConsolidatedQuote[], rows: readonly ChainQuoteRow[], now: number): SmileCurve {
  const first = contracts[0];
  const forward = weightedMean(rows, (r) => r.forward) ?? first?.forward ?? 0;
  const t = first === undefined ? null : pricingT(first.expiry, now);
  const byStrike = new Map<number, { call?: ConsolidatedQuote; put?: ConsolidatedQuote }>();
  for (const c of contracts) {
    const e = byStrike.get(c.strike) ?? {};
    e[c.type] = c;
    byStrike.set(c.strike, e);
  }
  const points: SmilePointOut[] = [...byStrike.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([strike, e]) => {
      const otm = strike < forward ? (e.put ?? e.call) : (e.call ?? e.put);
      const c = otm as ConsolidatedQuote;
      const iv = positive(c.mark_iv);
      return {
        strike,
        log_moneyness: Math.log(strike / forward),
        type: c.type,
        delta: iv === null || t === null ? null : bsDelta(c.type, forward, strike, iv, t),
        mark_iv: iv,
        bid_iv: positive(c.bid?.iv ?? null),
        ask_iv: positive(c.ask?.iv ?? null),
      };
    });
  const atm = atmIv(
    contracts.flatMap((c) => (positive(c.mark_iv) === null ? [] : [{ strike: c.strike, iv: c.mark_iv as number }])),
    forward,
  );
  const wing = (type: OptionType): { delta: number; iv: number }[] =>
    points.flatMap((p) =>
      p.type === type && p.delta !== null && p.mark_iv !== null && (type === 'call' ? p.strike >= forward : p.strike < forward)
        ? [{ delta: p.delta, iv: p.mark_iv }]
        : [],
    );
  const c25 = ivAtDelta(wing('call'), 0.25);
  const p25 = ivAtDelta(wing('put'), -0.25);
  return {
    forward,
    atm_iv: atm,
    iv_25d_call: c25,
    iv_25d_put: p25,
    rr_25d: c25 !== null && p25 !== null ? c25 - p25 : null,
    bf_25d: c25 !== null && p25 !== null && atm !== null ? (c25 + p25) / 2 - atm : null,
    points,
  };
}

function byExpiry(rows: readonly ChainQuoteRow[]): Map<number, ChainQuoteRow[]> {
  const m = new Map<number, ChainQuoteRow[]>();
  for (const r of rows) {
    const g = m.get(r.expiry);
    if (g === undefined) m.set(r.expiry, [r]);
    else g.push(r);
  }
  return new Map([...m.entries()].sort((a, b) => a[0] - b[0]));
}

const curveOf = (rows: readonly ChainQuoteRow[], now: number): SmileCurve =>
  smileCurve(groupByContract(rows).map(consolidateContract), rows, now);

/** Per expiry the consolidated smile and, with `perVenue`, every venue's own. Expiries not after `now` are left out. */
export function smiles(rows: readonly ChainQuoteRow[], now: number, perVenue: boolean): ExpirySmile[] {
  const out: ExpirySmile[] = [];
  for (const [expiry, group] of byExpiry(rows)) {
    if (expiry <= now) continue;
    const venues = perVenue
      ? [...new Set(group.map((r) => r.venue))].sort().map((venue) => ({
          venue,
          ...curveOf(
            group.filter((r) => r.venue === venue),
            now,
          ),
        }))
      : undefined;
    out.push({ expiry, t_years: yearFraction(expiry, now), ...curveOf(group, now), ...(venues !== undefined ? { venues } : {}) });
  }
  return out;
}

export interface ConstantMaturityPoint {
  readonly days: number;
  readonly atm_iv: number | null;
  /** interpolated (total variance between two expiries), flat_front (shorter than the front expiry), or null. */
  readonly method: 'interpolated' | 'flat_front' | null;
  /** The expiries used (one for flat_front, two for interpolated). */
  readonly expiries: readonly number[];
}

export interface TermStructure {
  readonly expiries: readonly {
    readonly expiry: number;
    readonly t_years: number;
    readonly forward: number;
    readonly atm_iv: number | null;
  }[];
  readonly constant_maturity: readonly ConstantMaturityPoint[];
}

/** σ at `tau` years from the listed (t, σ) points (σ²T linear between brackets; flat before the front; null after the last). */
export function constantMaturity(
  term: readonly { readonly expiry: number; readonly t: number; readonly iv: number }[],
  tau: number,
): Omit<ConstantMaturityPoint, 'days'> {
  const pts = term.filter((p) => p.t > 0 && p.iv > 0).sort((a, b) => a.t - b.t);
  const front = pts[0];
  if (front === undefined) return { atm_iv: null, method: null, expiries: [] };
  if (tau <= front.t) return { atm_iv: front.iv, method: 'flat_front', expiries: [front.expiry] };
  for (let i = 1; i < pts.length; i++) {
    const lo = pts[i - 1] as (typeof pts)[number];
    const hi = pts[i] as (typeof pts)[number];
    if (tau <= hi.t) {
      const w0 = lo.iv * lo.iv * lo.t;
      const w1 = hi.iv * hi.iv * hi.t;
      const w = w0 + ((w1 - w0) * (tau - lo.t)) / (hi.t - lo.t);
      return { atm_iv: Math.sqrt(w / tau), method: 'interpolated', expiries: [lo.expiry, hi.expiry] };
    }
  }
  return { atm_iv: null, method: null, expiries: [] };
}

export function termStructure(rows: readonly ChainQuoteRow[], now: number): TermStructure {
  const expiries = smiles(rows, now, false).map((s) => ({ expiry: s.expiry, t_years: s.t_years, forward: s.forward, atm_iv: s.atm_iv }));
  const term = expiries.flatMap((e) => (e.atm_iv === null ? [] : [{ expiry: e.expiry, t: e.t_years, iv: e.atm_iv }]));
  return { expiries, constant_maturity: CONSTANT_MATURITY_DAYS.map((days) => ({ days, ...constantMaturity(term, days * DAY_YEARS) })) };
}
