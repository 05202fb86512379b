/**
 * An in-memory mirror of stored option trades kept current from the bus, the shared mechanics of the tape tail
 * (tail-feed.ts) and the live flow book (live-flow-feed.ts):
 *  1. this process's own consumer group on the option-trade topic, from the end of the log; every trade that
 *     decodes goes to `onTrade` (before the store has it: the mirror is as fresh as the bus); one that does not is
 *     skipped and counted (the raw writer dead-letters it: the store never has it);
 *  2. `settleMs` after the partitions are assigned (so trades published before reached the store through the raw
 *     writer) the first `sync` (a load from the store), then one every `periodMs` (a reconciliation: stored trades
 *     the mirror lacks are added). A failed sync is logged and retried at the next period.
 * Syncs run one after another; `sync()` queues one that sees every trade stored before the call. Called before the
 * first sync started, it is the first sync: the armed one is cancelled and the period counts from it.
 */
import { Counter } from 'prom-client';
import type { Bus, BusConsumer, ConsumedBatch } from '#bus/types.ts';
import { childLogger } from '#platform/log.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { metricsRegistry, registeredMetric } from '#platform/metrics/registry.ts';
import { decodeMarketEvent } from '#schemas/event-codec.ts';
import { TOPICS, type OptionTrade } from '#schemas/events.ts';

const log = childLogger('trade-mirror');
const skipped = registeredMetric(
  METRIC.apiTradeMirrorSkipped,
  () =>
    new Counter({
      name: METRIC.apiTradeMirrorSkipped,
      help: 'Option-trade bus messages an in-memory trade mirror (tape tail, live flow book) could not decode, by mirror',
      labelNames: ['mirror'] as const,
      registers: [metricsRegistry],
    }),
);

export interface BusMirrorOptions {
  /** Names the consumer group, the logs and the skip counter's label. */
  readonly name: string;
  readonly bus: Bus;
  readonly onTrade: (t: OptionTrade) => void;
  /** A load / reconciliation from the store; its errors are logged and retried at the next period. */
  readonly sync: () => Promise<void>;
  readonly periodMs: number;
  /** Wait between the partition assignment and the first sync, ms. Default 2,000. */
  readonly settleMs?: number;
}

export class BusMirror {
  private consumer: BusConsumer | null = null;
  private starting: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  /** When the armed first sync runs (wall ms); +∞ none armed. */
  private firstAt = Number.POSITIVE_INFINITY;
  private ticking = false;

  constructor(private readonly opts: BusMirrorOptions) {}

  /**
   * Subscribes (resolves once the consumer is running; rejects when the bus refuses); the syncs follow on their own.
   * Until the first sync the mirror answers nothing, so a caller may go on without waiting.
   */
  start(): Promise<void> {
    this.starting ??= this.subscribe();
    return this.starting;
  }

  private async subscribe(): Promise<void> {
    const settle = this.opts.settleMs ?? 2_000;
    const consumer = await this.opts.bus.subscribe({
      groupId: `${this.opts.name}-${process.pid}-${Math.random().toString(36).slice(2, 10)}`,
      topics: [TOPICS.option_trade],
      fromBeginning: false,
      eachBatch: async (batch) => this.onBatch(batch),
      // The consumer starts at the log's end as of its assignment: what was published before reaches the store.
      onAssignment: () => this.armFirst(settle),
    });
    this.consumer = consumer;
    if (this.stopped) {
      await consumer.stop();
      return;
    }
    // A bus that announced no assignment yet: sync anyway after a longer wait (the next sync repairs).
    this.armFirst(Math.max(15_000, settle));
  }

  /**
   * Queues a sync after any in flight; resolves when it is done (never rejects). Before the first sync started it is
   * the first: the armed one is cancelled and the next runs `periodMs` after this one.
   */
  sync(): Promise<void> {
    if (this.ticking) return this.enqueue();
    if (this.timer !== null) clearTimeout(this.timer);
    return this.tick();
  }

  private enqueue(): Promise<void> {
    const run = this.queue.then(async () => {
      if (this.stopped) return;
      try {
        await this.opts.sync();
      } catch (err) {
        log.warn({ err, mirror: this.opts.name }, 'sync with the store failed; retried at the next period');
      }
    });
    this.queue = run;
    return run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.starting?.catch(() => undefined);
    if (this.timer !== null) clearTimeout(this.timer);
    await this.consumer?.stop();
    await this.queue;
  }

  /** (Re)arms the first sync `afterMs` from now unless the syncs started or an earlier one is armed. */
  private armFirst(afterMs: number): void {
    const at = Date.now() + afterMs;
    if (this.ticking || this.stopped || at >= this.firstAt) return;
    this.firstAt = at;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), afterMs);
  }

  /** One sync of the schedule (the first or a periodic one); the next is armed `periodMs` after it. */
  private tick(): Promise<void> {
    this.ticking = true;
    const run = this.enqueue();
    void run.finally(() => this.scheduleNext());
    return run;
  }

  private scheduleNext(): void {
    if (!this.stopped) this.timer = setTimeout(() => this.tick(), this.opts.periodMs);
  }

  private onBatch(batch: ConsumedBatch): void {
    for (const m of batch.messages) {
      let trade: OptionTrade;
      try {
        const e = decodeMarketEvent(TOPICS.option_trade, m.value);
        if (e.type !== 'option_trade') continue;
        trade = e.event;
      } catch (err) {
        skipped.inc({ mirror: this.opts.name });
        log.warn({ err, mirror: this.opts.name, partition: m.partition, offset: m.offset }, 'option trade not decodable: skipped');
        continue;
      }
      this.opts.onTrade(trade);
    }
  }
}
