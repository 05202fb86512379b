/**
 * After the broker is back (its port open again, `upAt`): how long each role of a deployment takes to work again,
 * polled until every figure is measured or its deadline passed (null then). The bounds the test asserts are these
 * deadlines; they are generous because the test runs on a busy 2-core machine:
 * - publish: the publishing process's gex_bus_published_messages_total moved between two scrapes both started after
 *   upAt (the time of the second; scrapes every 500 ms). Bound 60 s.
 * - backlog: what the publishing process held while the broker was away is published: its in-memory backlog
 *   (gex_ingest_publish_backlog_messages) at most BACKLOG_DRAINED messages and its disk spool empty. Bound 60 s.
 * Each figure is polled on its own (a slow store read or scrape delays only its own figure).
 * - snapshots: every symbol that had snapshots before has one of a tick after upAt in the store (gamma_flow, the
 *   cycle's completion marker), and that tick is one of the first two aligned ticks after upAt. Observed at most
 *   two intervals + 40 s after upAt (the tick, its 10 s durability wait, the cycles, a 2 s poll).
 * - v2: the API answers 200 on health, the trade tape and the GEX levels. Bound 30 s.
 * - wsTape / wsLevels: the feed client got a tape notification after upAt / a levels notification of a snapshot
 *   computed after upAt (same bound as the snapshots, + 5 s).
 */
import type { Store } from '#clickhouse/store.ts';
import { msInt64, msParam } from '#clickhouse/epoch-ms.ts';
import { withDeadline } from '#platform/deadline.ts';
import { METRIC } from '#platform/metrics/names.ts';
import type { FeedWatch } from './feed-watch.ts';
import { metricTotal, servesV2 } from './probes.ts';

export interface RecoveryTargets {
  readonly publisherMetrics: string;
  readonly store: Store;
  /** Symbols with snapshots before the outage. */
  readonly symbols: readonly string[];
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly feed: FeedWatch;
  readonly intervalMs: number;
}

/** Seconds from upAt to the first observation; null: not within its bound. */
export interface Recovery {
  readonly publishS: number | null;
  readonly backlogS: number | null;
  readonly snapshotsS: number | null;
  /** Per symbol, how many aligned ticks after upAt its first new snapshot is (1 = the first tick). */
  readonly snapshotTick: Readonly<Record<string, number>>;
  readonly v2S: number | null;
  readonly wsTapeS: number | null;
  readonly wsLevelsS: number | null;
}

export const BOUNDS = {
  publishMs: 60_000,
  backlogMs: 60_000,
  v2Ms: 30_000,
  /** Snapshots: the second aligned tick after upAt plus this. */
  snapshotGraceMs: 40_000,
  wsTapeMs: 60_000,
} as const;

/** A publisher's in-memory backlog at or below this is its ordinary linger-to-linger content, not a backlog. */
export const BACKLOG_DRAINED = 500;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Per symbol, the earliest completed snapshot tick after `t` (a read slower than 10 s counts as none yet). */
async function firstSnapshotsAfter(store: Store, t: number): Promise<Map<string, number>> {
  const rows = await withDeadline(
    store.query<{ symbol: string; t: string }>(
      `SELECT symbol, toString(${msInt64('min(computed_at)')}) AS t FROM gamma_flow WHERE computed_at > ${msParam('after')} GROUP BY symbol`,
      { after: t },
    ),
    10_000,
  );
  return new Map(rows.map((r) => [r.symbol, Number(r.t)]));
}

/**
 * Polls `check` every `everyMs` (each check on its own: a slow one delays only itself) until it resolves true or
 * `deadline` passes; the time it first did, else null.
 */
async function firstTrue(deadline: number, everyMs: number, check: () => Promise<boolean>): Promise<number | null> {
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return Date.now();
    await sleep(everyMs);
  }
  return null;
}

export async function measureRecovery(x: RecoveryTargets, upAt: number): Promise<Recovery> {
  const firstTick = Math.floor(upAt / x.intervalMs) * x.intervalMs + x.intervalMs;
  const snapshotDeadline = firstTick + x.intervalMs + BOUNDS.snapshotGraceMs;
  const seconds = (at: number | null): number | null => (at === null ? null : (at - upAt) / 1000);
  let lastPublished: number | null = null;
  let snapshotTick: Record<string, number> = {};
  const [publishAt, backlogAt, snapshotsAt, v2At, wsTapeAt, wsLevelsAt] = await Promise.all([
    // Two scrapes both started after upAt, the second higher: published in between.
    firstTrue(upAt + BOUNDS.publishMs, 500, async () => {
      const started = Date.now();
      const n = await metricTotal(x.publisherMetrics, METRIC.busPublishedMessages);
      const moved = n !== null && lastPublished !== null && n > lastPublished;
      if (n !== null && started >= upAt) lastPublished = n;
      return moved;
    }),
    firstTrue(upAt + BOUNDS.backlogMs, 500, async () => {
      const [held, spooled] = await Promise.all([
        metricTotal(x.publisherMetrics, METRIC.ingestPublishBacklog),
        metricTotal(x.publisherMetrics, METRIC.ingestSpoolBytes),
      ]);
      return held !== null && held <= BACKLOG_DRAINED && spooled === 0;
    }),
    firstTrue(snapshotDeadline, 2_000, async () => {
      const first = await firstSnapshotsAfter(x.store, upAt);
      if (!x.symbols.every((s) => first.has(s))) return false;
      snapshotTick = Object.fromEntries(x.symbols.map((s) => [s, ((first.get(s) ?? 0) - firstTick) / x.intervalMs + 1]));
      return true;
    }),
    firstTrue(upAt + BOUNDS.v2Ms, 1_000, () => servesV2(x.apiUrl, x.apiKey)),
    firstTrue(upAt + BOUNDS.wsTapeMs, 250, () => Promise.resolve(x.feed.tapeAfter(upAt) !== null)).then((at) =>
      at === null ? null : x.feed.tapeAfter(upAt),
    ),
    firstTrue(snapshotDeadline + 5_000, 250, () => Promise.resolve(x.feed.levelsAfter(upAt) !== null)).then((at) =>
      at === null ? null : x.feed.levelsAfter(upAt),
    ),
  ]);
  return {
    publishS: seconds(publishAt),
    backlogS: seconds(backlogAt),
    snapshotsS: seconds(snapshotsAt),
    snapshotTick,
    v2S: seconds(v2At),
    wsTapeS: seconds(wsTapeAt),
    wsLevelsS: seconds(wsLevelsAt),
  };
}
