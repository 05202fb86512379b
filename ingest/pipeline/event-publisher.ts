import { TOPICS, type DeadLetter, type MarketEvent } from '#schemas/events.ts';
import { encodeMarketEvent, encodeDeadLetter } from '#schemas/event-codec.ts';
import type { Bus, BusMessage } from '#bus/types.ts';
import { ingestMetrics, reasonClass } from './ingest-metrics.ts';
import { childLogger } from '#platform/log.ts';
import { ok, runStep, type PipelineStep } from '#platform/steps/step-runner.ts';
import type { RetryPolicy } from '#platform/steps/retry-policy.ts';

export interface PublisherOptions {
  /** Flush a topic as soon as it holds this many messages. */
  readonly maxBatch: number;
  /** Flush whatever is buffered at most this long after the first message arrived. */
  readonly lingerMs: number;
  /** Above this many buffered-or-in-flight messages `add` returns a promise to await (backpressure). */
  readonly highWaterMark: number;
}

const CLOSE_RETRIES = 5;
const log = childLogger('publisher');
/** A refused batch is retried after the shared jittered backoff: up to 100 ms first, at most 5 s. */
const PUBLISH_RETRY: RetryPolicy = { baseMs: 100, maxMs: 5000 };

interface TopicBatch {
  readonly topic: string;
  readonly messages: BusMessage[];
}
const DEFAULTS: PublisherOptions = { maxBatch: 2000, lingerMs: 25, highWaterMark: 50_000 };

/**
 * Batches normalized events and dead letters per topic and publishes them on the bus. Encoding happens once per
 * event here; publishing is serialized per publisher so the per-key order of `add` calls is the bus order.
 */
export class EventPublisher {
  private readonly opts: PublisherOptions;
  private readonly buffers = new Map<string, BusMessage[]>();
  private buffered = 0;
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private closing = false;
  /**
   * A batch the bus refuses is retried with the shared backoff rather than dropped (callers are held back by the
   * high-water mark meanwhile). Once closing, it gives up after CLOSE_RETRIES attempts and `flush` throws.
   */
  private readonly publishStep: PipelineStep<TopicBatch, void> = {
    name: 'bus.publish',
    log,
    retry: PUBLISH_RETRY,
    classify: (_err, attempts) => (this.closing && attempts >= CLOSE_RETRIES ? 'fail' : 'retry'),
    context: (b) => ({ topic: b.topic, size: b.messages.length }),
    run: async (b) => ok(await this.bus.publish(b.topic, b.messages)),
  };

  constructor(
    private readonly bus: Bus,
    opts: Partial<PublisherOptions> = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  /** Queue events; resolves immediately unless the publisher is above its high-water mark. */
  add(events: readonly MarketEvent[]): Promise<void> | undefined {
    // Counted per run of same-venue, same-type events (a frame's events usually are one run): one metric
    // update per run instead of per event.
    let runVenue = '';
    let runType = '';
    let run = 0;
    for (const e of events) {
      const { topic, message } = encodeMarketEvent(e);
      this.push(topic, message);
      if (e.event.venue !== runVenue || e.type !== runType) {
        if (run > 0) ingestMetrics.events.inc({ venue: runVenue, type: runType }, run);
        runVenue = e.event.venue;
        runType = e.type;
        run = 0;
      }
      run++;
    }
    if (run > 0) ingestMetrics.events.inc({ venue: runVenue, type: runType }, run);
    return this.pressure();
  }

  deadLetter(d: DeadLetter): Promise<void> | undefined {
    this.push(TOPICS.dead_letter, encodeDeadLetter(d));
    ingestMetrics.deadLetters.inc({ venue: d.venue, reason: reasonClass(d.reason) });
    return this.pressure();
  }

  /** Publish everything buffered and wait until the bus accepted it. */
  async flush(): Promise<void> {
    this.drain();
    await this.chain;
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async publishBatch(batch: TopicBatch): Promise<void> {
    try {
      await runStep(this.publishStep, batch);
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
    } finally {
      this.inFlight -= batch.messages.length;
    }
  }

  private push(topic: string, message: BusMessage): void {
    let buf = this.buffers.get(topic);
    if (!buf) this.buffers.set(topic, (buf = []));
    buf.push(message);
    this.buffered++;
    if (buf.length >= this.opts.maxBatch) this.drain();
    else this.timer ??= setTimeout(() => this.drain(), this.opts.lingerMs);
  }

  /**
   * Above the high-water mark: the promise of the publishes queued so far. It does not flush the buffers: they
   * still leave on their size or linger trigger, so a slow bus keeps getting full batches (flushing here on every
   * add sent one tiny batch per frame to Kafka once behind: ~5k events/s instead of ~45k).
   */
  private pressure(): Promise<void> | undefined {
    if (this.buffered + this.inFlight < this.opts.highWaterMark) return undefined;
    return this.chain;
  }

  private drain(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const [topic, buf] of this.buffers) {
      if (buf.length === 0) continue;
      this.buffers.set(topic, []);
      this.buffered -= buf.length;
      this.inFlight += buf.length;
      this.chain = this.chain.then(() => this.publishBatch({ topic, messages: buf }));
    }
  }
}
