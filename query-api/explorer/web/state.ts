/**
 * The explorer's view state and its URL form (pure: no DOM). The URL holds everything needed to share a view:
 * `?symbol=BTCUSDT&model=flow&venues=deribit,okx&at=2026-11-25T10:00:00.000Z&study_days=30` (no `at` = live;
 * `study_days` = the level study's window, 7, 30 or 90). Unknown or
 * malformed values fall back to the defaults, never to an error: a shared link from an older page still opens.
 */
import { SYMBOLS, VENUES, type MarketSymbol } from '#schemas/markets.ts';

export { SYMBOLS, VENUES };
export type ExplorerSymbol = MarketSymbol;
export const MODELS = ['flow', 'std'] as const;
export type Model = (typeof MODELS)[number];

/** Replay step: one GEX snapshot cadence. */
export const STEP_MS = 30_000;
/** Replay window: the last 24 hours. */
export const WINDOW_MS = 24 * 3_600_000;

/** The level study panel's windows (days ending now). */
export const STUDY_DAYS = [7, 30, 90] as const;
export type StudyDays = (typeof STUDY_DAYS)[number];
export const DEFAULT_STUDY_DAYS: StudyDays = 30;

export interface ViewState {
  readonly symbol: ExplorerSymbol;
  /** Venue filter; empty = every venue. Canonical order, no duplicates. */
  readonly venues: readonly string[];
  readonly model: Model;
  /** Point-in-time instant (ms UTC, a multiple of STEP_MS), or null for live. */
  readonly at: number | null;
  /** The level study's window. */
  readonly studyDays: StudyDays;
}

export const DEFAULT_STATE: ViewState = { symbol: 'BTCUSDT', venues: [], model: 'flow', at: null, studyDays: DEFAULT_STUDY_DAYS };

const isOneOf = <T extends string>(values: readonly T[], v: string | null): v is T =>
  v !== null && (values as readonly string[]).includes(v);

export function parseState(search: string): ViewState {
  const q = new URLSearchParams(search);
  const symbol = q.get('symbol')?.toUpperCase() ?? null;
  const model = q.get('model')?.toLowerCase() ?? null;
  const named = new Set((q.get('venues') ?? '').split(',').map((v) => v.trim().toLowerCase()));
  const atText = q.get('at');
  const atMs = atText === null ? Number.NaN : Date.parse(atText);
  return {
    symbol: isOneOf(SYMBOLS, symbol) ? symbol : DEFAULT_STATE.symbol,
    venues: VENUES.filter((v) => named.has(v)),
    model: isOneOf(MODELS, model) ? model : DEFAULT_STATE.model,
    at: Number.isFinite(atMs) ? alignStep(atMs) : null,
    studyDays: STUDY_DAYS.find((d) => String(d) === q.get('study_days')) ?? DEFAULT_STUDY_DAYS,
  };
}

/** The query string of a state (defaults included, so a link reads the same whatever the defaults become). */
export function formatState(s: ViewState): string {
  const q = new URLSearchParams({ symbol: s.symbol, model: s.model });
  if (s.venues.length > 0) q.set('venues', s.venues.join(','));
  if (s.at !== null) q.set('at', new Date(s.at).toISOString());
  q.set('study_days', String(s.studyDays));
  return `?${q.toString().replaceAll('%2C', ',').replaceAll('%3A', ':')}`;
}

/** Floor an instant to the replay grid (UTC multiples of 30 s). */
export function alignStep(ms: number): number {
  return Math.floor(ms / STEP_MS) * STEP_MS;
}

/**
 * The replay timeline ending at `nowMs`: slider position i (0…count−1) ↔ instant `start + i·STEP_MS`; the last
 * position is the newest grid instant at or before now. `count` = WINDOW_MS / STEP_MS + 1 (2,881 positions).
 */
export interface Timeline {
  readonly start: number;
  readonly count: number;
}

export function timeline(nowMs: number, windowMs = WINDOW_MS): Timeline {
  const end = alignStep(nowMs);
  return { start: end - alignStep(windowMs), count: alignStep(windowMs) / STEP_MS + 1 };
}

export function instantAt(t: Timeline, index: number): number {
  return t.start + Math.min(t.count - 1, Math.max(0, Math.round(index))) * STEP_MS;
}

/** Slider position of an instant (clamped to the timeline). */
export function indexOf(t: Timeline, ms: number): number {
  return Math.min(t.count - 1, Math.max(0, Math.round((alignStep(ms) - t.start) / STEP_MS)));
}

/** Common query parameters of the GEX routes for a state (`exchanges`, `positioning`, `as_of`). */
export function gexParams(s: ViewState): URLSearchParams {
  const q = new URLSearchParams({ symbol: s.symbol, positioning: s.model });
  if (s.venues.length > 0) q.set('exchanges', s.venues.join(','));
  if (s.at !== null) q.set('as_of', new Date(s.at).toISOString());
  return q;
}
