/**
 * The start-up fill (INGEST_START_FILL_MS): a freshly started ingest process has no "last frame" to fill from, so
 * trades its predecessor received but never published (a crash, SIGKILL) or that were printed while no ingest ran
 * would be lost. Once every planned socket of the venue is open (live trades flow from then on), the trades of the
 * last `lookBackMs` are asked from the venue's REST recent-trades endpoints, as after a reconnect of every covered
 * connection. Trades published twice (by the predecessor and by this fill) have the same event id and sort key: the
 * raw tables store them once.
 */
export interface StartFillHooks {
  /** Open and planned sockets of the venue. */
  counts(): { open: number; planned: number };
  /** Ids of the planned connections. */
  connectionIds(): readonly string[];
  /** The runner's reconnect-gap hook (coalesces the connections into one REST fill). */
  onGap(connection: string, sinceMs: number, untilMs: number): void;
  stopped(): boolean;
}

/** Waits (up to `maxWaitMs`) for every planned socket to be open, then `settleMs` for the subscriptions, then fills. */
export function scheduleStartFill(
  hooks: StartFillHooks,
  lookBackMs: number,
  startedAt = Date.now(),
  settleMs = 500,
  maxWaitMs = 60_000,
): void {
  const poll = setInterval(() => {
    const { open, planned } = hooks.counts();
    const timedOut = Date.now() - startedAt > maxWaitMs;
    if (hooks.stopped() || (!timedOut && (planned === 0 || open < planned))) {
      if (hooks.stopped()) clearInterval(poll);
      return;
    }
    clearInterval(poll);
    setTimeout(() => {
      if (hooks.stopped()) return;
      const now = Date.now();
      for (const id of hooks.connectionIds()) hooks.onGap(id, startedAt - lookBackMs, now);
    }, settleMs).unref();
  }, 100);
  poll.unref();
}
