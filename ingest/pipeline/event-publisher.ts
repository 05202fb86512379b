import { TOPICS, type DeadLetter, type MarketEvent } from '#schemas/events.ts';
import { encodeMarketEvent, encodeDeadLetter } from '#schemas/event-codec.ts';
import type { Bus, BusMessage } from '#bus/types.ts';
import { ingestMetrics, publishBacklogs, publishedEventsOf, reasonClass } from './ingest-metrics.ts';
import { childLogger } from '#platform/log.ts';
import { ok, runStep, type PipelineStep } from '#platform/steps/step-runner.ts';
import type { RetryPolicy } from '#platform/steps/retry-policy.ts';
import type { PublishSpool, SpoolBatch } from './publish-spool.ts';

export interface PublisherOptions {
  /** Flush a topic as soon as it holds this many messages. */
  readonly maxBatch: number;
  /** Flush whatever is buffered at most this long after the first message arrived. */
  readonly lingerMs: number;
  /** Above this many buffered-or-in-flight messages `add` returns a promise to await (backpressure). */
  readonly highWaterMark: number;
  /**
   * Where messages go while the bus is down: at the high-water mark with a batch refused or pending for
   * SPOOL_AFTER_MS, new messages are appended to this disk spool instead of holding the callers back, and published
   * from it in order once the bus takes them again. Without one, callers wait at the high-water mark.
   */
  readonly spool?: PublishSpool;
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
/** A batch refused, or pending this long, at the high-water mark: the bus is down, and new messages go to the spool. */
export const SPOOL_AFTER_MS = 2000;
/** How often a caller held at the high-water mark re-checks whether the spool should take over. */
const STALL_CHECK_MS = 250;

/**
 * Batches normalized events and dead letters per topic and publishes them on the bus. Encoding happens once per
 * event here; publishing is serialized per publisher so the per-key order of `add` calls is the bus order.
 */
export class EventPublisher {
  private readonly opts: PublisherOptions;
  private readonly buffers = new Map<string, BusMessage[]>();
  /** Drained messages per topic whose publish is on the chain and not yet started (counted in inFlight). */
  private readonly queued = new Map<string, BusMessage[]>();
  private buffered = 0;
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failure: Error | null = null;
  private closing = false;
  /** New messages go to the spool (from a stall until the spool is read to its end). */
  private spooling = false;
  /** Since when the batch being published has been trying (null = none). */
  private batchSince: number | null = null;
  /** A batch was refused since the last accepted one. */
  private refused = false;
  /** The promise callers wait on at the high-water mark while a spool may take over. */
  private gate: Promise<void> | null = null;
  private gateTimer: NodeJS.Timeout | null = null;
  /**
   * A batch the bus refuses is retried with the shared backoff rather than dropped (callers are held back by the
   * high-water mark meanwhile). Once closing, it gives up after CLOSE_RETRIES attempts and `flush` throws.
   */
  private readonly publishStep: PipelineStep<TopicBatch, void> = {
    name: 'bus.publish',
    log,
    retry: PUBLISH_RETRY,
    classify: (_err, attempts) => {
      this.refused = true;
      return this.closing && attempts >= CLOSE_RETRIES ? 'fail' : 'retry';
    },
    context: (b) => ({ topic: b.topic, size: b.messages.length }),
    run: async (b) => ok(await this.bus.publish(b.topic, b.messages)),
  };

  constructor(
    private readonly bus: Bus,
    opts: Partial<PublisherOptions> = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
    publishBacklogs.add(this.held);
    // A spool left by a previous process is published before anything new.
    if (this.opts.spool?.hasUnread) this.startSpooling();
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
        if (run > 0) publishedEventsOf(runVenue, runType).inc(run);
        runVenue = e.event.venue;
        runType = e.type;
        run = 0;
      }
      run++;
    }
    if (run > 0) publishedEventsOf(runVenue, runType).inc(run);
    return this.pressure();
  }

  deadLetter(d: DeadLetter): Promise<void> | undefined {
    this.push(TOPICS.dead_letter, encodeDeadLetter(d));
    ingestMetrics.deadLetters.inc({ venue: d.venue, reason: reasonClass(d.reason) });
    return this.pressure();
  }

  /** Publish everything buffered (the spool too) and wait until the bus accepted it. */
  async flush(): Promise<void> {
    this.drain();
    await this.chain;
    while (this.spooling && this.failure === null) {
      this.pumpSpool();
      await this.chain;
    }
    if (this.failure) throw this.failure;
  }

  /** Flush; with a spool, what the bus did not take stays in it for the next process. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      await this.flush();
    } finally {
      this.openGate();
      this.opts.spool?.close();
      publishBacklogs.delete(this.held);
    }
  }

  /** Messages held in memory (gex_ingest_publish_backlog_messages). */
  private readonly held = (): number => this.buffered + this.inFlight;

  /** True when the batch was accepted. */
  private async publishBatch(batch: TopicBatch): Promise<boolean> {
    this.batchSince = Date.now();
    try {
      await runStep(this.publishStep, batch);
      this.refused = false;
      return true;
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      return false;
    } finally {
      this.batchSince = null;
      this.inFlight -= batch.messages.length;
      // Room on the chain: the spool moves up (the batches drained from memory when spooling began come first).
      if (this.spooling && this.failure === null) this.pumpSpool();
    }
  }

  private push(topic: string, message: BusMessage): void {
    if (this.spooling && this.opts.spool) {
      this.opts.spool.append(topic, message);
      ingestMetrics.spooled.inc();
      return;
    }
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
    const spool = this.opts.spool;
    if (this.spooling && spool) {
      return spool.bytes < spool.maxBytes ? undefined : this.chain;
    }
    if (this.buffered + this.inFlight < this.opts.highWaterMark) return undefined;
    if (spool === undefined || this.closing) return this.chain;
    if (this.stalled()) {
      this.startSpooling();
      return undefined;
    }
    // Held until the bus catches up, or until it is found stalled and the spool takes over.
    this.gate ??= new Promise<void>((resolve) => {
      const settle = (): void => {
        this.openGate();
        resolve();
      };
      void this.chain.then(settle);
      this.gateTimer = setInterval(() => {
        if (this.stalled()) this.startSpooling();
        if (this.spooling || this.buffered + this.inFlight < this.opts.highWaterMark) settle();
      }, STALL_CHECK_MS);
    });
    return this.gate;
  }

  private openGate(): void {
    if (this.gateTimer) clearInterval(this.gateTimer);
    this.gateTimer = null;
    this.gate = null;
  }

  /** The bus refused a batch since the last accepted one, or one has been pending SPOOL_AFTER_MS. */
  private stalled(): boolean {
    return this.refused || (this.batchSince !== null && Date.now() - this.batchSince >= SPOOL_AFTER_MS);
  }

  /** From now on new messages go to the spool; what is buffered in memory is published first. */
  private startSpooling(): void {
    if (this.spooling || this.opts.spool === undefined) return;
    this.drain();
    this.spooling = true;
    log.warn({ buffered: this.inFlight, spoolBytes: this.opts.spool.bytes }, 'bus stalled: spooling to disk');
    this.pumpSpool();
  }

  /**
   * Moves spooled messages onto the publish chain, at most two batches ahead of the bus; each batch is released
   * (deleted from disk) once accepted. Once nothing is left unread, new messages go to memory again: they queue
   * behind the last spooled batch, so the bus order is the order of `add`.
   */
  private pumpSpool(): void {
    const spool = this.opts.spool;
    while (this.spooling && spool !== undefined && this.inFlight < this.opts.maxBatch * 2) {
      const batch = spool.take(this.opts.maxBatch);
      if (batch === null) {
        this.spooling = false;
        log.info({}, 'publish spool read to its end: publishing directly');
        break;
      }
      this.inFlight += batch.records.length;
      // Messages drained from now on go behind this batch, not into a publish queued before it.
      this.queued.clear();
      this.chain = this.chain.then(() => this.publishSpooled(batch));
    }
  }

  /** One spooled batch, a bus batch per topic in order; released when all were accepted, then the pump goes on. */
  private async publishSpooled(batch: SpoolBatch): Promise<void> {
    const byTopic = new Map<string, BusMessage[]>();
    for (const r of batch.records) {
      let list = byTopic.get(r.topic);
      if (!list) byTopic.set(r.topic, (list = []));
      list.push(r.message);
    }
    let accepted = true;
    for (const [topic, messages] of byTopic) accepted = (await this.publishBatch({ topic, messages })) && accepted;
    if (accepted) batch.release();
  }

  /**
   * Moves the buffers onto the publish chain. A topic whose publish is already queued and not yet started gets these
   * messages added to it, so what piles up behind a slow or refused batch leaves as full batches once the bus takes
   * them again (one publish per topic and linger would take minutes to send after a long broker outage).
   */
  private drain(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const [topic, buf] of this.buffers) {
      if (buf.length === 0) continue;
      this.buffers.set(topic, []);
      this.buffered -= buf.length;
      this.inFlight += buf.length;
      const queued = this.queued.get(topic);
      if (queued !== undefined) {
        for (const m of buf) queued.push(m);
        continue;
      }
      this.queued.set(topic, buf);
      this.chain = this.chain.then(() => this.publishQueued(topic, buf));
    }
  }

  /** The messages drained for `topic` into `messages` until this publish started, in batches of at most maxBatch. */
  private async publishQueued(topic: string, messages: BusMessage[]): Promise<void> {
    if (this.queued.get(topic) === messages) this.queued.delete(topic);
    const size = this.opts.maxBatch;
    for (let i = 0; i < messages.length; i += size) {
      await this.publishBatch({ topic, messages: messages.length <= size ? messages : messages.slice(i, i + size) });
    }
  }
}
