/**
 * Per-contract preparation and GEX in USD per 1% move: GEX = Γ·Q·S²·0.01, Q signed dealer quantity in coins,
 * Γ Black-76 on the expiry's forward, S the common spot.
 */
import { VENUES } from '#schemas/events.ts';
import type { OptionType, Venue } from '#schemas/events.ts';
import { MIN_T_YEARS, gamma, yearFraction } from './black76.ts';
import { flowQuantity, stdQuantity } from './dealer.ts';
import type { ChainInstrument, ChainSnapshot } from './types.ts';

/** USD per 1% move for a signed quantity `q` (coins) with gamma `g` at spot `s`. */
export function contractGex(g: number, q: number, s: number): number {
  return g * q * s * s * 0.01;
}

/** An instrument that is open (T > 0); `sigma` null when its IV is missing/0 (kept for OI statistics only). */
export interface OpenInstrument {
  readonly venue: Venue;
  readonly strike: number;
  readonly expiry: number;
  readonly type: OptionType;
  readonly openInterest: number;
  readonly forward: number;
  readonly sigma: number | null;
  /** Pricing T in years (floored at 1 h). */
  readonly t: number;
  /** Γ at the current forward (0 when sigma is null). */
  readonly gamma: number;
  readonly qStd: number;
  readonly qFlow: number;
  readonly hasInventory: boolean;
}

export interface PrepareDiagnostics {
  readonly instrumentsUsed: number;
  readonly skippedNoIv: number;
  readonly droppedExpired: number;
  readonly tFloored: number;
}

export interface PreparedChain {
  /** Open instruments in canonical order (venue, expiry, strike, type, then remaining fields). */
  readonly open: readonly OpenInstrument[];
  readonly diagnostics: ReadonlyMap<Venue, PrepareDiagnostics>;
}

const VENUE_INDEX: ReadonlyMap<Venue, number> = new Map(VENUES.map((v, i) => [v, i]));

export function venueOrder(v: Venue): number {
  return VENUE_INDEX.get(v) ?? VENUES.length;
}

function cmpNum(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Total order on instruments so every sum is computed in the same order whatever the input order. */
export function compareInstruments(a: ChainInstrument, b: ChainInstrument): number {
  return (
    cmpNum(venueOrder(a.venue), venueOrder(b.venue)) ||
    cmpNum(a.expiry, b.expiry) ||
    cmpNum(a.strike, b.strike) ||
    (a.type === b.type ? 0 : a.type === 'call' ? -1 : 1) ||
    cmpNum(a.openInterest, b.openInterest) ||
    cmpNum(a.markIv ?? -1, b.markIv ?? -1) ||
    cmpNum(a.forward, b.forward) ||
    cmpNum(a.dealerInventory ?? Number.NEGATIVE_INFINITY, b.dealerInventory ?? Number.NEGATIVE_INFINITY)
  );
}

function validIv(iv: number | null): iv is number {
  return iv !== null && Number.isFinite(iv) && iv > 0;
}

interface MutableDiag {
  instrumentsUsed: number;
  skippedNoIv: number;
  droppedExpired: number;
  tFloored: number;
}

/** Drop expired rows, floor T at 1 h, mark missing-IV rows, compute Γ and both signed quantities. */
export function prepareChain(chain: ChainSnapshot): PreparedChain {
  const sorted = [...chain.instruments].sort(compareInstruments);
  const diag = new Map<Venue, MutableDiag>();
  const open: OpenInstrument[] = [];
  for (const ins of sorted) {
    let d = diag.get(ins.venue);
    if (d === undefined) {
      d = { instrumentsUsed: 0, skippedNoIv: 0, droppedExpired: 0, tFloored: 0 };
      diag.set(ins.venue, d);
    }
    const rawT = yearFraction(ins.expiry, chain.now);
    if (!(rawT > 0)) {
      d.droppedExpired++;
      continue;
    }
    const t = rawT < MIN_T_YEARS ? MIN_T_YEARS : rawT;
    const sigma = validIv(ins.markIv) ? ins.markIv : null;
    if (sigma === null) d.skippedNoIv++;
    else {
      d.instrumentsUsed++;
      if (rawT < MIN_T_YEARS) d.tFloored++;
    }
    const oi = Number.isFinite(ins.openInterest) && ins.openInterest > 0 ? ins.openInterest : 0;
    open.push({
      venue: ins.venue,
      strike: ins.strike,
      expiry: ins.expiry,
      type: ins.type,
      openInterest: oi,
      forward: ins.forward,
      sigma,
      t,
      gamma: sigma === null ? 0 : gamma(ins.forward, ins.strike, sigma, t),
      qStd: stdQuantity(ins.type, oi),
      qFlow: flowQuantity(ins.dealerInventory, oi),
      hasInventory: ins.dealerInventory !== undefined,
    });
  }
  return { open, diagnostics: diag };
}
