/**
 * Historical depth (spec "Limits"): a plan-dependent window bounds how far back history requests reach.
 * A request beyond it is served only for the allowed window when the depth is enforced (evaluation keys);
 * for paid plans the clamp is reported but the requested window is served. Pure.
 */

const DAY_MS = 86_400_000;

export interface TimeWindow {
  /** ms, inclusive. */
  readonly from: number;
  /** ms, inclusive. */
  readonly to: number;
}

export interface HistoryPolicy {
  /** Plan window in days; null = unlimited. */
  readonly historyDays: number | null;
  /** Evaluation keys have the depth enforced. */
  readonly enforced: boolean;
  readonly now: number;
}

/** `meta.extra.history_clamp`. */
export interface HistoryClamp {
  readonly requested_from: string;
  readonly requested_to: string;
  readonly served_from: string;
  readonly served_to: string;
  readonly enforced: boolean;
  readonly history_days: number;
}

export interface ClampResult {
  readonly served: TimeWindow;
  /** `meta.history_depth_enforced`. */
  readonly enforced: boolean;
  /** Present only when the request reaches beyond the plan window. */
  readonly clamp: HistoryClamp | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** Earliest instant the plan may read, or null when unlimited. */
export function earliestAllowed(policy: HistoryPolicy): number | null {
  return policy.historyDays === null ? null : policy.now - policy.historyDays * DAY_MS;
}

export function clampWindow(requested: TimeWindow, policy: HistoryPolicy): ClampResult {
  const floor = earliestAllowed(policy);
  if (floor === null || policy.historyDays === null || requested.from >= floor) {
    return { served: requested, enforced: policy.enforced, clamp: null };
  }
  const served: TimeWindow = policy.enforced ? { from: floor, to: Math.max(requested.to, floor) } : requested;
  return {
    served,
    enforced: policy.enforced,
    clamp: {
      requested_from: iso(requested.from),
      requested_to: iso(requested.to),
      served_from: iso(served.from),
      served_to: iso(served.to),
      enforced: policy.enforced,
      history_days: policy.historyDays,
    },
  };
}

/** Point-in-time form (as_of): the instant is a window of zero length. */
export function clampInstant(
  at: number,
  policy: HistoryPolicy,
): { readonly served: number; readonly enforced: boolean; readonly clamp: HistoryClamp | null } {
  const r = clampWindow({ from: at, to: at }, policy);
  return { served: r.served.from, enforced: r.enforced, clamp: r.clamp };
}

/** The meta fields a history route adds: `history_depth_enforced` and, when clamped, `extra.history_clamp`. */
export function historyMeta(r: { readonly enforced: boolean; readonly clamp: HistoryClamp | null }): {
  history_depth_enforced: boolean;
  extra?: { history_clamp: HistoryClamp };
} {
  return r.clamp === null
    ? { history_depth_enforced: r.enforced }
    : { history_depth_enforced: r.enforced, extra: { history_clamp: r.clamp } };
}
