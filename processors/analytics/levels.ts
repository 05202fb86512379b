/**
 * The `data` object of /v2/gex/levels, extracted from an aggregate (sums of venue rows) only.
 *
 * Walls (per scope, per model):
 * - std: call resistance / call walls 2, 3 = strikes by call GEX descending; put support / put walls 2, 3 =
 *   strikes by put GEX ascending (most negative first).
 * - flow: ranked by unsigned gamma dollars Σ Γ·|inventory|·S²·0.01 of that type; the sign of the signed
 *   flow GEX at the strike is reported in `wall_signs`.
 * - Only strikes with a non-zero ranking value are candidates; none → null (so are walls 2/3 when fewer
 *   candidates). Tie-break: larger |value| → larger OI of that type → closer to spot → lower strike.
 * hvl = re-priced zero-gamma level nearest spot (profile root nearest x = 0), null with `hvl_reason` when the
 * profile never changes sign on ±25%.
 */
import { resolveModel } from './dealer.ts';
import { EXPECTED_MOVE_HORIZON_YEARS, atmVolAtHorizon, expectedMoveBand } from './expected-move.ts';
import type { ExpectedMove } from './expected-move.ts';
import { maxPain } from './max-pain.ts';
import type { MaxPain } from './max-pain.ts';
import { findRoots, GRID_X } from './profile.ts';
import type { FlipDirection, ProfileStatus } from './profile.ts';
import { pricingT } from './black76.ts';
import type { AggregateSnapshot } from './aggregate-types.ts';
import type { ScopeBlock } from './snapshot-row.ts';
import type { DealerModel } from './types.ts';

export type LevelsIncludeKey = 'ranked' | 'max_pain' | 'expected_move' | 'zones' | 'spot' | 'profile' | 'by_strike';
export type LevelsInclude = readonly LevelsIncludeKey[];
/** The compact blocks: stored with every gex_levels row and sent on the WebSocket levels channel. */
export const STORED_INCLUDES: LevelsInclude = ['ranked', 'max_pain', 'expected_move', 'zones', 'spot'];
/** Every block; `profile` and `by_strike` (arrays of ~200 numbers each) are computed on request from the venue rows. */
export const ALL_INCLUDES: LevelsInclude = [...STORED_INCLUDES, 'profile', 'by_strike'];

export type Sign = -1 | 0 | 1;
export type NoFlipReason = Exclude<ProfileStatus, 'ok'>;

export interface AllExpiryLevels {
  readonly hvl: number | null;
  readonly call_resistance: number | null;
  readonly call_wall_2: number | null;
  readonly call_wall_3: number | null;
  readonly put_support: number | null;
  readonly put_wall_2: number | null;
  readonly put_wall_3: number | null;
  /** Present only when hvl is null. */
  readonly hvl_reason?: NoFlipReason;
  /** Total net GEX at spot under the model that ran, USD per 1%. */
  readonly net_gex: number;
  /** Dealer sign of each wall's GEX (std: calls +1, puts −1; flow: sign of net dealer gamma). */
  readonly wall_signs: {
    readonly call_resistance: Sign | null;
    readonly call_wall_2: Sign | null;
    readonly call_wall_3: Sign | null;
    readonly put_support: Sign | null;
    readonly put_wall_2: Sign | null;
    readonly put_wall_3: Sign | null;
  };
}

export interface OdteLevels {
  readonly hvl: number | null;
  readonly call_resistance: number | null;
  readonly put_support: number | null;
  /** ISO instant of the 0DTE expiry, null when none within 24 h. */
  readonly expiry: string | null;
  /** 'no_expiry_within_24h' when the block is empty. */
  readonly reason?: 'no_expiry_within_24h';
  readonly hvl_reason?: NoFlipReason;
  readonly net_gex: number | null;
  readonly wall_signs: { readonly call_resistance: Sign | null; readonly put_support: Sign | null };
}

export interface RankedStrike {
  readonly strike: number;
  readonly net_gex: number;
  readonly call_gex: number;
  readonly put_gex: number;
}

export interface FlipZone {
  /** Bracketing grid prices S·(1+x_lo), S·(1+x_hi). */
  readonly lower: number;
  readonly upper: number;
  /** Refined root S·(1+x*). */
  readonly level: number;
  readonly direction: FlipDirection;
}

export interface ExpectedMoveBlock extends ExpectedMove {
  /** σ used (ATM IV at the 24 h horizon, total-variance interpolated). */
  readonly atm_iv: number;
  readonly horizon_hours: number;
}

export interface LevelsDiagnostics {
  readonly venues: readonly string[];
  readonly instruments_used: number;
  readonly skipped_no_iv: number;
  readonly dropped_expired: number;
  readonly t_floored: number;
}

export interface LevelsData {
  readonly all_expiry: AllExpiryLevels;
  readonly odte: OdteLevels;
  readonly positioning: DealerModel;
  readonly ranked?: { readonly all_expiry_top_10: readonly RankedStrike[]; readonly odte_top_10: readonly RankedStrike[] };
  readonly max_pain?: MaxPain | null;
  readonly expected_move?: ExpectedMoveBlock | null;
  readonly gamma_flip_zones?: readonly FlipZone[];
  readonly spot?: { readonly spot_price: number; readonly perps_price: number | null };
  readonly profile?: GexProfile;
  readonly by_strike?: GexByStrike;
  readonly diagnostics?: LevelsDiagnostics;
}

/**
 * Net GEX re-priced at hypothetical spots (sticky strike): `spot[j]` = S·(1 + x_j), x_j from −25% to +25% by
 * 0.25% (201 points); `net_gex[j]` = G(x_j) of the model that ran, USD per 1% move; `odte_net_gex` the same
 * for the 0DTE expiry (null when none within 24 h). hvl is the root of `net_gex` nearest spot.
 */
export interface GexProfile {
  readonly spot: readonly number[];
  readonly net_gex: readonly number[];
  readonly odte_net_gex: readonly number[] | null;
}

/** Every strike of every open expiry (ascending): call and put GEX of the model that ran (USD per 1%), OI in coins. */
export interface GexByStrike {
  readonly strikes: readonly number[];
  readonly call_gex: readonly number[];
  readonly put_gex: readonly number[];
  readonly net_gex: readonly number[];
  readonly call_oi: readonly number[];
  readonly put_oi: readonly number[];
}

interface Candidate {
  readonly strike: number;
  /** Ranking magnitude (≥ 0). */
  readonly value: number;
  readonly oi: number;
  readonly sign: Sign;
}

function sign(v: number): Sign {
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/** Deterministic ranking: |value| desc → OI desc → distance to spot asc → strike asc. */
export function rankCandidates(cands: readonly Candidate[], spot: number): Candidate[] {
  return cands
    .filter((c) => c.value !== 0 && Number.isFinite(c.value))
    .sort((a, b) => b.value - a.value || b.oi - a.oi || Math.abs(a.strike - spot) - Math.abs(b.strike - spot) || a.strike - b.strike);
}

function wallCandidates(t: ScopeBlock, side: 'call' | 'put', model: DealerModel): Candidate[] {
  return t.strikes.map((strike, i) => {
    const oi = (side === 'call' ? t.call_oi[i] : t.put_oi[i]) ?? 0;
    if (model === 'std') {
      const g = (side === 'call' ? t.call_gex_std[i] : t.put_gex_std[i]) ?? 0;
      return { strike, value: Math.abs(g), oi, sign: sign(g) };
    }
    const abs = (side === 'call' ? t.call_gex_flow_abs[i] : t.put_gex_flow_abs[i]) ?? 0;
    const g = (side === 'call' ? t.call_gex_flow[i] : t.put_gex_flow[i]) ?? 0;
    return { strike, value: abs, oi, sign: sign(g) };
  });
}

function strikeGex(t: ScopeBlock, i: number, model: DealerModel): { call: number; put: number } {
  return model === 'std'
    ? { call: t.call_gex_std[i] ?? 0, put: t.put_gex_std[i] ?? 0 }
    : { call: t.call_gex_flow[i] ?? 0, put: t.put_gex_flow[i] ?? 0 };
}

/** Top n strikes by |net GEX| (same tie rule, OI = call + put OI). */
export function rankedStrikes(t: ScopeBlock, model: DealerModel, spot: number, n = 10): RankedStrike[] {
  const rows = t.strikes.map((strike, i) => {
    const g = strikeGex(t, i, model);
    return { strike, net_gex: g.call + g.put, call_gex: g.call, put_gex: g.put, oi: (t.call_oi[i] ?? 0) + (t.put_oi[i] ?? 0) };
  });
  return rows
    .filter((r) => r.call_gex !== 0 || r.put_gex !== 0)
    .sort(
      (a, b) =>
        Math.abs(b.net_gex) - Math.abs(a.net_gex) ||
        b.oi - a.oi ||
        Math.abs(a.strike - spot) - Math.abs(b.strike - spot) ||
        a.strike - b.strike,
    )
    .slice(0, n)
    .map(({ strike, net_gex, call_gex, put_gex }) => ({ strike, net_gex, call_gex, put_gex }));
}

/** The profile block: the stored grid of the model, mapped to prices. */
export function gexProfile(agg: AggregateSnapshot, model: DealerModel): GexProfile {
  const spot = agg.meta.spot;
  return {
    spot: GRID_X.map((x) => spot * (1 + x)),
    net_gex: profileOf(agg, model).values,
    odte_net_gex: agg.odte === null ? null : profileOf(agg.odte, model).values,
  };
}

/** The by-strike block of a scope under one model. */
export function gexByStrike(t: ScopeBlock, model: DealerModel): GexByStrike {
  const call: number[] = [];
  const put: number[] = [];
  for (let i = 0; i < t.strikes.length; i++) {
    const g = strikeGex(t, i, model);
    call.push(g.call);
    put.push(g.put);
  }
  return {
    strikes: t.strikes,
    call_gex: call,
    put_gex: put,
    net_gex: call.map((c, i) => c + (put[i] ?? 0)),
    call_oi: t.call_oi,
    put_oi: t.put_oi,
  };
}

export function totalNetGex(t: ScopeBlock, model: DealerModel): number {
  let sum = 0;
  for (let i = 0; i < t.strikes.length; i++) {
    const g = strikeGex(t, i, model);
    sum += g.call + g.put;
  }
  return sum;
}

function profileOf(t: ScopeBlock, model: DealerModel): { values: readonly number[]; slopes: readonly number[] } {
  return model === 'std'
    ? { values: t.profile_std, slopes: t.profile_std_slope }
    : { values: t.profile_flow, slopes: t.profile_flow_slope };
}

export interface ScopeFlips {
  readonly hvl: number | null;
  readonly hvl_reason?: NoFlipReason;
  readonly zones: FlipZone[];
}

export function scopeFlips(t: ScopeBlock, model: DealerModel, spot: number): ScopeFlips {
  const p = profileOf(t, model);
  const r = findRoots(p.values, p.slopes);
  const zones = r.roots.map((z) => ({
    lower: spot * (1 + z.lowerX),
    upper: spot * (1 + z.upperX),
    level: spot * (1 + z.x),
    direction: z.direction,
  }));
  if (r.zero === null) return { hvl: null, hvl_reason: r.status === 'ok' ? 'no_gamma' : r.status, zones };
  return { hvl: spot * (1 + r.zero.x), zones };
}

/** σ at the 24 h horizon from combined per-expiry ATM IVs, and the band around spot. */
export function expectedMoveFromAggregate(agg: AggregateSnapshot, horizonYears = EXPECTED_MOVE_HORIZON_YEARS): ExpectedMoveBlock | null {
  const term = agg.expiries.flatMap((e) => {
    const t = pricingT(e.expiry, agg.meta.computed_at);
    return t === null || e.atm_iv === null ? [] : [{ t, iv: e.atm_iv }];
  });
  const sigma = atmVolAtHorizon(term, horizonYears);
  if (sigma === null) return null;
  return { ...expectedMoveBand(agg.meta.spot, sigma, horizonYears), atm_iv: sigma, horizon_hours: horizonYears * 8760 };
}

/** Per-expiry max pain (for /v2/gex/max-pain). */
export function maxPainByExpiry(agg: AggregateSnapshot): { readonly expiry: number; readonly max_pain: MaxPain | null }[] {
  return agg.expiries.map((e) => ({ expiry: e.expiry, max_pain: maxPain(e.strikes, e.call_oi, e.put_oi) }));
}

function nth(c: readonly Candidate[], i: number): number | null {
  return c[i]?.strike ?? null;
}
function nthSign(c: readonly Candidate[], i: number): Sign | null {
  return c[i]?.sign ?? null;
}

/** Build the levels payload. `requested` is the positioning asked for; the one that ran is reported. */
export function extractLevels(agg: AggregateSnapshot, requested: DealerModel, include: LevelsInclude = []): LevelsData {
  const model = resolveModel(requested, agg.meta.symbol, agg.has_inventory);
  const spot = agg.meta.spot;
  const calls = rankCandidates(wallCandidates(agg, 'call', model), spot);
  const puts = rankCandidates(wallCandidates(agg, 'put', model), spot);
  const flips = scopeFlips(agg, model, spot);
  const all_expiry: AllExpiryLevels = {
    hvl: flips.hvl,
    call_resistance: nth(calls, 0),
    call_wall_2: nth(calls, 1),
    call_wall_3: nth(calls, 2),
    put_support: nth(puts, 0),
    put_wall_2: nth(puts, 1),
    put_wall_3: nth(puts, 2),
    ...(flips.hvl_reason !== undefined ? { hvl_reason: flips.hvl_reason } : {}),
    net_gex: totalNetGex(agg, model),
    wall_signs: {
      call_resistance: nthSign(calls, 0),
      call_wall_2: nthSign(calls, 1),
      call_wall_3: nthSign(calls, 2),
      put_support: nthSign(puts, 0),
      put_wall_2: nthSign(puts, 1),
      put_wall_3: nthSign(puts, 2),
    },
  };

  let odte: OdteLevels;
  if (agg.odte === null) {
    odte = {
      hvl: null,
      call_resistance: null,
      put_support: null,
      expiry: null,
      reason: 'no_expiry_within_24h',
      net_gex: null,
      wall_signs: { call_resistance: null, put_support: null },
    };
  } else {
    const oc = rankCandidates(wallCandidates(agg.odte, 'call', model), spot);
    const op = rankCandidates(wallCandidates(agg.odte, 'put', model), spot);
    const of = scopeFlips(agg.odte, model, spot);
    odte = {
      hvl: of.hvl,
      call_resistance: nth(oc, 0),
      put_support: nth(op, 0),
      expiry: new Date(agg.odte.expiry).toISOString(),
      ...(of.hvl_reason !== undefined ? { hvl_reason: of.hvl_reason } : {}),
      net_gex: totalNetGex(agg.odte, model),
      wall_signs: { call_resistance: nthSign(oc, 0), put_support: nthSign(op, 0) },
    };
  }

  const inc = new Set(include);
  return {
    all_expiry,
    odte,
    positioning: model,
    ...(inc.has('ranked')
      ? {
          ranked: {
            all_expiry_top_10: rankedStrikes(agg, model, spot),
            odte_top_10: agg.odte === null ? [] : rankedStrikes(agg.odte, model, spot),
          },
        }
      : {}),
    ...(inc.has('max_pain') ? { max_pain: maxPain(agg.strikes, agg.call_oi, agg.put_oi) } : {}),
    ...(inc.has('expected_move') ? { expected_move: expectedMoveFromAggregate(agg) } : {}),
    ...(inc.has('zones') ? { gamma_flip_zones: flips.zones } : {}),
    ...(inc.has('spot') ? { spot: { spot_price: spot, perps_price: agg.meta.perp_price } } : {}),
    ...(inc.has('profile') ? { profile: gexProfile(agg, model) } : {}),
    ...(inc.has('by_strike') ? { by_strike: gexByStrike(agg, model) } : {}),
    diagnostics: { venues: agg.venues, ...agg.diagnostics },
  };
}
