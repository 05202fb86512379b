/**
 * The role outage test's three broker outages and where in the snapshot cycle each one starts, drawn from a seeded
 * random number generator: the seed is printed with the chosen instants, and ROLE_OUTAGE_SEED replays a run.
 *
 * - 5 s, aimed at a snapshot tick's durability wait: the broker is sent SIGTERM 3-5 s before an aligned tick (a clean
 *   shutdown takes 0.7-2.8 s, measured), so the tick's wait for the raw writer's commits (processors/snapshots/
 *   durability.ts) starts while the broker is shutting down or gone and its look-ups fail or hang (a SIGTERM less than
 *   the shutdown's length before the tick can leave the broker answering a wait that ends before its port closes);
 * - 45 s, aimed at a consumer group join: a second `gex processors` is started at once and the broker is sent SIGTERM
 *   as soon as the raw writer's group is rebalancing (the running processor rejoining); where that falls in the
 *   cycle depends on how long the joiner takes to start (printed);
 * - 180 s, anywhere: SIGTERM 0-30 s after a tick.
 * The down time is the pause between the broker's exit and its restart; the broker is unavailable from the SIGTERM
 * until its port opens again (a JVM start adds ~10 s, measured and printed).
 */

import { prng } from '#processors/analytics/testing/synthetic-chain.ts';

export const OUTAGE_SEED_ENV = 'ROLE_OUTAGE_SEED';

export type OutageAim = 'durability wait' | 'group join' | 'anywhere';

export interface PlannedOutage {
  readonly downMs: number;
  readonly aim: OutageAim;
  /** Relative to an aligned snapshot tick: when the SIGTERM is sent (durability wait, anywhere); group join: 0 (unused). */
  readonly offsetMs: number;
}

/** ROLE_OUTAGE_SEED when set (a run to replay), else a fresh one. */
export function outageSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env[OUTAGE_SEED_ENV];
  if (given !== undefined && given !== '') {
    const n = Number(given);
    if (!Number.isInteger(n) || n < 0 || n > 0xffffffff)
      throw new Error(`${OUTAGE_SEED_ENV} must be an integer in [0, 2^32), got ${given}`);
    return n;
  }
  return Math.floor(Math.random() * 0x100000000);
}

export function planOutages(seed: number, intervalMs = 30_000): readonly PlannedOutage[] {
  const random = prng(seed);
  const between = (lo: number, hi: number): number => Math.round(lo + random() * (hi - lo));
  return [
    { downMs: 5_000, aim: 'durability wait', offsetMs: -between(3_000, 5_000) },
    { downMs: 45_000, aim: 'group join', offsetMs: 0 },
    { downMs: 180_000, aim: 'anywhere', offsetMs: between(0, intervalMs) },
  ];
}

/** The earliest aligned tick T with T + offsetMs at least `leadMs` from now: the instant chosen against it is still ahead. */
export function tickFor(nowMs: number, offsetMs: number, leadMs: number, intervalMs = 30_000): number {
  return Math.ceil((nowMs + leadMs - offsetMs) / intervalMs) * intervalMs;
}
