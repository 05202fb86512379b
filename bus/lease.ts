import type { Bus } from './types.ts';

/**
 * An exclusive lease held through a consumer group: the member of `groupId` that owns partition 0 of `topic` holds
 * it. The bus gives a partition to one member of a group at a time and moves it when that member leaves the group
 * or misses its session timeout, so a job that must run once (the GEX snapshot processor) runs in one process and a
 * standby process takes it over within the session timeout. Other rebalances (a standby joining, the group forming
 * again after a broker restart) leave partition 0 with its holder (SubscribeOptions.holdsLease). The members consume
 * nothing (the handler ignores the messages); only the assignment matters.
 *
 * A member that is frozen past its session timeout still believes it holds the lease until it rejoins (and is told
 * otherwise): the job must tolerate a short overlap (the snapshot processor's inserts carry dedup tokens).
 */
export interface LeaseOptions {
  readonly groupId: string;
  readonly topic: string;
  /** Starts the job on this member; resolves with the function that stops it (lease lost, or stop()). */
  readonly onAcquired: () => Promise<() => Promise<void>>;
  /**
   * A failed start or stop of the job. Default: rethrown, so the process's unhandled-rejection handler ends it
   * (a role exits 70 and its supervisor restarts it).
   */
  readonly onError?: (err: unknown) => void;
}

export interface Lease {
  /** True while the job runs on this member. */
  held(): boolean;
  /** Stops the job (if running here), then leaves the group so that another member takes the lease at once. */
  stop(): Promise<void>;
}

export async function holdLease(bus: Bus, o: LeaseOptions): Promise<Lease> {
  let owned = false;
  let stopped = false;
  let release: (() => Promise<void>) | null = null;
  let queue: Promise<void> = Promise.resolve();
  const onError =
    o.onError ??
    ((err: unknown): void => {
      throw err;
    });
  // Transitions run one at a time, in order: a start still under way when the lease moves is stopped after it.
  const settle = (): Promise<void> =>
    (queue = queue
      .then(async () => {
        if (owned && !stopped && release === null) release = await o.onAcquired();
        else if ((!owned || stopped) && release !== null) {
          const stop = release;
          release = null;
          await stop();
        }
      })
      .catch(onError));
  const consumer = await bus.subscribe({
    groupId: o.groupId,
    topics: [o.topic],
    fromBeginning: false,
    maxBatchSize: 100,
    eachBatch: async () => undefined,
    holdsLease: () => owned && !stopped,
    onAssignment: (assigned) => {
      owned = assigned.some((tp) => tp.topic === o.topic && tp.partition === 0);
      void settle();
    },
  });
  return {
    held: () => release !== null,
    stop: async () => {
      stopped = true;
      await settle();
      await consumer.stop();
    },
  };
}
