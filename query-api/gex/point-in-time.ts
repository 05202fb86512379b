/** `as_of` handling shared by the GEX routes: never in the future, bounded by the plan's history window. */
import type { FastifyRequest } from 'fastify';
import { notFound, validationError } from '../envelope/errors.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { snapshotAsOf } from './as-of.ts';
import type { StoredSnapshot } from './as-of.ts';
import { clampInstant, clampWindow, historyMeta, type HistoryClamp, type TimeWindow } from '../limits/history-clamp.ts';
import type { AppContext } from '../types.ts';
import { instantMs } from '../params/query-params.ts';

export interface ResolvedInstant {
  /** The requested instant, normalized ISO. */
  readonly requested: string;
  /** The instant actually resolved (the window floor when the plan's depth is enforced and exceeded). */
  readonly servedMs: number;
  readonly history: { readonly history_depth_enforced: boolean; readonly extra?: { readonly history_clamp: HistoryClamp } };
}

function notFuture(ctx: AppContext, asOf: string): { ms: number; now: number } {
  const ms = instantMs(asOf);
  const now = ctx.clock();
  if (ms > now) {
    throw validationError([
      { name: 'as_of', location: 'query', message: `must not be in the future (now ${new Date(now).toISOString()})`, received: asOf },
    ]);
  }
  return { ms, now };
}

/** A point-in-time request: 422 when in the future; clamped to the plan window (enforced for evaluation keys). */
export function resolveInstant(ctx: AppContext, request: FastifyRequest, asOf: string): ResolvedInstant {
  const { ms } = notFuture(ctx, asOf);
  const c = clampInstant(ms, ctx.historyPolicy(request));
  return { requested: new Date(ms).toISOString(), servedMs: c.served, history: historyMeta(c) };
}

/** A window ending at `as_of` (or now): 422 when in the future; clamped to the plan window. */
export function resolveWindow(
  ctx: AppContext,
  request: FastifyRequest,
  asOf: string | undefined,
  window: (to: number) => TimeWindow,
): {
  readonly requested: string | null;
  readonly served: TimeWindow;
  readonly history: ResolvedInstant['history'];
} {
  const to = asOf === undefined ? null : notFuture(ctx, asOf).ms;
  const c = clampWindow(window(to ?? ctx.clock()), ctx.historyPolicy(request));
  return { requested: to === null ? null : new Date(to).toISOString(), served: c.served, history: historyMeta(c) };
}

/** The snapshot a latest-or-as_of request reads: the cached latest, or the stored one at or before the clamped instant. */
export async function snapshotForRequest(
  ctx: AppContext & { readonly cache: { get(symbol: MarketSymbol): StoredSnapshot | null } },
  request: FastifyRequest,
  symbol: MarketSymbol,
  asOf: string | undefined,
): Promise<{ readonly snap: StoredSnapshot; readonly at?: ResolvedInstant }> {
  if (asOf === undefined) {
    const snap = ctx.cache.get(symbol);
    if (snap === null) throw notFound(`no GEX snapshot for ${symbol} yet`);
    return { snap };
  }
  const at = resolveInstant(ctx, request, asOf);
  const snap = await snapshotAsOf(ctx.store, symbol, at.servedMs);
  if (snap === null) throw notFound(`no GEX snapshot for ${symbol} at or before ${new Date(at.servedMs).toISOString()}`);
  return { snap, at };
}

/** meta.extra.as_of and meta.history of an as_of answer (nothing for a latest one). */
export function pointInTimeMeta(
  at: ResolvedInstant | undefined,
  snapshotAt: number,
): { extra: Record<string, unknown>; history?: ResolvedInstant['history'] } {
  return at === undefined ? { extra: {} } : { extra: { as_of: asOfMeta(at.requested, snapshotAt, at.servedMs) }, history: at.history };
}

/** meta.extra.as_of: the requested instant, the snapshot used and the lag (seconds, served instant − snapshot). */
export function asOfMeta(
  requested: string,
  snapshotAt: number,
  servedMs: number,
): { requested: string; snapshot_at: string; lag_seconds: number } {
  return { requested, snapshot_at: new Date(snapshotAt).toISOString(), lag_seconds: (servedMs - snapshotAt) / 1000 };
}
