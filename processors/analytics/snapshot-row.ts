/**
 * The per-(symbol, venue, computed_at) snapshot row stored in ClickHouse, and its construction from a chain.
 * Every numeric column is a sum over the venue's contracts (or, for expiry ATM IV, a value with its OI
 * weight), so any subset of venues re-aggregates by summing rows (aggregate.ts) and levels are always
 * extracted from sums: the full computation IS the all-venue re-aggregation, so both are identical.
 */
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import { prepareChain } from './gex.ts';
import type { OpenInstrument } from './gex.ts';
import { atmIv } from './expected-move.ts';
import { GRID_MIN, GRID_POINTS, GRID_STEP, accumulate, finishProfile, newAccumulator, profileTerm } from './profile.ts';
import type { ProfileAccumulator, ProfileArrays } from './profile.ts';
import { buildStrikeTable } from './strikes.ts';
import type { StrikeTable } from './strikes.ts';
import type { ChainSnapshot } from './types.ts';

/** 0DTE candidate window: expiries within this many ms after `now`. */
export const ODTE_WINDOW_MS = 24 * 3600 * 1000;

/** Strike table + re-priced profiles of one scope (all expiries, or a single near expiry). */
export interface ScopeBlock extends StrikeTable, ProfileArrays {}

/** Scope of one expiry within 24 h of computed_at (0DTE candidate). */
export interface NearExpiryBlock extends ScopeBlock {
  /** ms UTC */
  readonly expiry: number;
}

/** Per-expiry inputs of max pain and expected move. */
export interface ExpiryStat {
  /** ms UTC */
  readonly expiry: number;
  /** This venue's ATM IV at K = F for the expiry (null when no valid IV). */
  readonly atm_iv: number | null;
  /** Weight of atm_iv when venues combine: the expiry's total OI on this venue, coins. */
  readonly atm_weight: number;
  readonly strikes: readonly number[];
  readonly call_oi: readonly number[];
  readonly put_oi: readonly number[];
}

export interface VenueSnapshotRow extends ScopeBlock {
  readonly symbol: MarketSymbol;
  readonly venue: Venue;
  /** ms UTC */
  readonly computed_at: number;
  /** Common spot used for every expiry, USD. */
  readonly spot: number;
  readonly perp_price: number | null;
  /** Profile grid: x_j = grid_min + j·grid_step, j < grid_points (−0.25, 0.0025, 201). */
  readonly grid_min: number;
  readonly grid_step: number;
  readonly grid_points: number;
  /** Whether any contract of this venue carries a measured dealer inventory (flow model input). */
  readonly has_inventory: boolean;
  readonly instruments_used: number;
  readonly skipped_no_iv: number;
  readonly dropped_expired: number;
  readonly t_floored: number;
  /** Expiries within 24 h, ascending. */
  readonly near: readonly NearExpiryBlock[];
  /** All open expiries, ascending. */
  readonly expiries: readonly ExpiryStat[];
}

class ScopeBuilder {
  readonly instruments: OpenInstrument[] = [];
  readonly acc: ProfileAccumulator = newAccumulator();

  add(ins: OpenInstrument): void {
    this.instruments.push(ins);
    if (ins.sigma === null || (ins.qStd === 0 && ins.qFlow === 0)) return;
    accumulate(this.acc, profileTerm(ins.forward, ins.strike, ins.sigma, ins.t, ins.qStd, ins.qFlow));
  }

  finish(spot: number): ScopeBlock {
    return { ...buildStrikeTable(this.instruments, spot), ...finishProfile(this.acc, spot) };
  }
}

function expiryStat(expiry: number, instruments: readonly OpenInstrument[]): ExpiryStat {
  const table = buildStrikeTable(instruments, 0);
  const priced = instruments.filter((i) => i.sigma !== null);
  let fSum = 0;
  for (const i of priced) fSum += i.forward;
  const forward = priced.length > 0 ? fSum / priced.length : Number.NaN;
  let weight = 0;
  for (const i of instruments) weight += i.openInterest;
  return {
    expiry,
    atm_iv:
      priced.length > 0
        ? atmIv(
            priced.map((i) => ({ strike: i.strike, iv: i.sigma ?? 0 })),
            forward,
          )
        : null,
    atm_weight: weight,
    strikes: table.strikes,
    call_oi: table.call_oi,
    put_oi: table.put_oi,
  };
}

/** One row per venue present in the chain, in canonical venue order. */
export function buildVenueRows(chain: ChainSnapshot): VenueSnapshotRow[] {
  const prepared = prepareChain(chain);
  const venues = [...prepared.diagnostics.keys()];
  const rows: VenueSnapshotRow[] = [];
  for (const venue of venues) {
    const all = new ScopeBuilder();
    const near = new Map<number, ScopeBuilder>();
    const byExpiry = new Map<number, OpenInstrument[]>();
    let hasInventory = false;
    for (const ins of prepared.open) {
      if (ins.venue !== venue) continue;
      if (ins.hasInventory) hasInventory = true;
      all.add(ins);
      if (ins.expiry - chain.now <= ODTE_WINDOW_MS) {
        let b = near.get(ins.expiry);
        if (b === undefined) {
          b = new ScopeBuilder();
          near.set(ins.expiry, b);
        }
        b.add(ins);
      }
      let list = byExpiry.get(ins.expiry);
      if (list === undefined) {
        list = [];
        byExpiry.set(ins.expiry, list);
      }
      list.push(ins);
    }
    const d = prepared.diagnostics.get(venue);
    rows.push({
      symbol: chain.symbol,
      venue,
      computed_at: chain.now,
      spot: chain.spot,
      perp_price: chain.perpPrice,
      grid_min: GRID_MIN,
      grid_step: GRID_STEP,
      grid_points: GRID_POINTS,
      has_inventory: hasInventory,
      instruments_used: d?.instrumentsUsed ?? 0,
      skipped_no_iv: d?.skippedNoIv ?? 0,
      dropped_expired: d?.droppedExpired ?? 0,
      t_floored: d?.tFloored ?? 0,
      ...all.finish(chain.spot),
      near: [...near.entries()].map(([expiry, b]) => ({ expiry, ...b.finish(chain.spot) })),
      expiries: [...byExpiry.entries()].map(([expiry, list]) => expiryStat(expiry, list)),
    });
  }
  return rows;
}
