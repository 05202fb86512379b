import type { FastifyRequest } from 'fastify';
import { ApiError } from '../envelope/errors.ts';
import { clampWindow, historyMeta } from '../limits/history-clamp.ts';
import { gridFor, maxHoursFor, MAX_POINTS, pointsFor, requestedWindow, type Grid, type MarketInterval } from './grid.ts';
import type { AppContext } from '../types.ts';

export const DEFAULT_INTERVAL: MarketInterval = '1h';
export const DEFAULT_HOURS = 24;

const fmt = (n: number): string => n.toLocaleString('en-US');

/** 422 when the window has more than MAX_POINTS buckets; the message names the largest window allowed. */
export function checkPoints(interval: MarketInterval, hours: number): void {
  const points = pointsFor(interval, hours);
  if (points <= MAX_POINTS) return;
  const max = maxHoursFor(interval);
  const message = `at most ${fmt(MAX_POINTS)} points per request: the largest window for interval ${interval} is ${fmt(max)} hours (requested ${fmt(hours)} hours = ${fmt(points)} points)`;
  throw new ApiError('VALIDATION_ERROR', message, { errors: [{ name: 'hours', location: 'query', message, received: String(hours) }] });
}

export interface ServedWindow {
  readonly grid: Grid;
  readonly interval: MarketInterval;
  readonly hours: number;
  readonly now: number;
  /** meta fields of the history clamp: history_depth_enforced, extra.history_clamp. */
  readonly history: ReturnType<typeof historyMeta>;
}

/**
 * The candles' point cap (only when the answer has candles: the contract bounds candles at 30,000 points and
 * every market series at 8760 hours, so the other series answer any contract-valid window, up to 525,600 points at
 * 1m), then the plan's history clamp (enforced: buckets before the allowed floor are dropped).
 */
export function servedWindow(
  ctx: AppContext,
  request: FastifyRequest,
  q: { readonly interval?: MarketInterval | undefined; readonly hours?: number | undefined },
  hasCandles: boolean,
): ServedWindow {
  const interval = q.interval ?? DEFAULT_INTERVAL;
  const hours = q.hours ?? DEFAULT_HOURS;
  if (hasCandles) checkPoints(interval, hours);
  const now = ctx.clock();
  const clamp = clampWindow(requestedWindow(interval, hours, now), ctx.historyPolicy(request));
  const floor = clamp.clamp !== null && clamp.enforced ? clamp.served.from : null;
  return { grid: gridFor(interval, hours, now, floor), interval, hours, now, history: historyMeta(clamp) };
}
