import { clampWindow, historyMeta, type HistoryPolicy } from './history-clamp.ts';

/**
 * The plan's history window on a dated series (ETF flow days, COT weeks: dates YYYY-MM-DD, UTC): the request
 * reaches from `requestedFrom` (ms) to now. Enforced (evaluation keys): items dated before the plan's floor are
 * dropped before anything is computed from them, so no figure of the answer rests on data outside the window;
 * not enforced (paid plans): everything is served and the clamp is reported. Pure.
 */
export function clampDated<T>(
  items: readonly T[],
  dateOf: (item: T) => string,
  requestedFrom: number,
  policy: HistoryPolicy,
): { readonly items: readonly T[]; readonly history: ReturnType<typeof historyMeta> } {
  const clamp = clampWindow({ from: requestedFrom, to: Math.max(requestedFrom, policy.now) }, policy);
  const floor = clamp.clamp !== null && clamp.enforced ? clamp.served.from : null;
  const kept = floor === null ? items : items.filter((item) => dayStart(dateOf(item)) >= floor);
  return { items: kept, history: historyMeta(clamp) };
}

/** Start of a UTC date, ms. */
export function dayStart(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}
