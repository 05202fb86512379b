/**
 * The soak's pre-fill plan (pure): how many option trades to emit next per symbol so that the product's in-memory
 * bounds (the tape tail per symbol, the live flow book per flow symbol) are full before the soak measures, without
 * flooding the venue sockets faster than the product ingests.
 */

/** Option trades each symbol must have had ingested for its bounds to be full. */
export type PrefillTargets = Readonly<Record<string, number>>;

export interface PrefillState {
  /** Option trades emitted by the sandbox so far, per symbol. */
  readonly emitted: Readonly<Record<string, number>>;
  /** Option trades emitted and not yet counted by the product's ingest (all symbols). */
  readonly outstanding: number;
}

export interface PrefillLimits {
  /** Emitted trades the product may be behind by before the next burst waits. */
  readonly window: number;
  /** Trades of one burst (all symbols together). */
  readonly burst: number;
}

/**
 * The next burst: per symbol still short of its target, a share of `burst` proportional to what it still needs
 * (at least 1 while it needs any), never past its target; empty while `outstanding` is at or above `window`.
 */
export function nextBurst(targets: PrefillTargets, state: PrefillState, limits: PrefillLimits): Record<string, number> {
  const out: Record<string, number> = {};
  if (state.outstanding >= limits.window) return out;
  const room = Math.min(limits.burst, limits.window - state.outstanding);
  const needs = Object.entries(targets)
    .map(([symbol, target]) => [symbol, Math.max(0, target - (state.emitted[symbol] ?? 0))] as const)
    .filter(([, need]) => need > 0);
  const total = needs.reduce((a, [, need]) => a + need, 0);
  for (const [symbol, need] of needs) out[symbol] = Math.min(need, Math.max(1, Math.floor((room * need) / total)));
  return out;
}

/** Targets: `tapeTailRows` (plus `margin`) for every symbol, `liveFlowTrades` (plus `margin`) for the flow symbols. */
export function prefillTargets(
  symbols: readonly string[],
  flowSymbols: readonly string[],
  tapeTailRows: number,
  liveFlowTrades: number,
  margin: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of symbols) {
    const bound = Math.max(tapeTailRows, flowSymbols.includes(s) ? liveFlowTrades : 0);
    out[s] = bound === 0 ? 0 : bound + margin;
  }
  return out;
}
