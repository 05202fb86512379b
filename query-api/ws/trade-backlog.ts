/**
 * The trades between the bus and the hub. The tape consumer hands every bus batch over at once (decoded, stamped with
 * the time the bus delivered it) and returns, so the backlog of a feed that falls behind is here, where it is
 * measured and bounded, not in the bus. The end of each bus batch (flush) and each turn of the event loop after it take
 * up to FANOUT_CHUNK trades in bus order and give each channel its share in one FeedHub.publishMany (one socket write
 * per subscriber for the lot).
 *
 * Drop-and-mark: a trade that waited here longer than `maxAgeMs` (TRADE_MAX_AGE_MS, 2 s) is not sent; it is counted in
 * gex_ws_feed_dropped_total{stream="tape"} and its channel's seq still advances (FeedHub.markDropped), so subscribers
 * see the gap as a seq jump. The backlog thus holds at most about maxAgeMs of trades whatever the overload.
 */
import type { OptionTrade } from '#schemas/events.ts';
import { childLogger } from '#platform/log.ts';
import { tapeRow } from '../tape/tape-row.ts';
import type { FeedHub } from './hub.ts';
import { wsMetrics } from './metrics.ts';

const log = childLogger('ws-feed');

/**
 * Oldest a trade may be when its fan-out starts, counted from the bus delivering it to this process. 2 s: a live
 * tape client is better served by a marked gap (the missed trades are on /v2/tape) than by trades seconds late, and
 * it is two orders of magnitude above the healthy wait (one chunk, tens of ms at 1,000 subscribers).
 */
export const TRADE_MAX_AGE_MS = 2_000;
/** Trades per fan-out turn: a run of 128 frames to 1,000 sockets takes ~17 ms (bench/ws-fanout.ts), then I/O gets a turn. */
export const FANOUT_CHUNK = 128;

interface Entry {
  readonly name: string;
  readonly trade: OptionTrade;
  /** performance.now() when the bus delivered it. */
  readonly at: number;
}

/** One channel's trades of a chunk in order: rendered JSON, or null for a dropped one. */
interface ChannelShare {
  readonly items: (string | null)[];
  readonly at: number;
}

export class TradeBacklog {
  private entries: Entry[] = [];
  private head = 0;
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly hub: FeedHub,
    private readonly maxAgeMs: number = TRADE_MAX_AGE_MS,
  ) {}

  /** Trades waiting for their fan-out. */
  get size(): number {
    return this.entries.length - this.head;
  }

  push(name: string, trade: OptionTrade, at: number): void {
    if (this.closed) return;
    this.entries.push({ name, trade, at });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.turn());
    }
  }

  close(): void {
    this.closed = true;
    this.entries = [];
    this.head = 0;
  }

  /**
   * Fans out one chunk now: the tape consumer calls it once a bus batch is queued, so the first chunk leaves in the
   * task that delivered the batch instead of after the rest of the event loop's I/O phase (the socket and worker
   * events queued meanwhile: under 20 concurrent replays, their batches). The rest waits for its turn as before.
   */
  flush(): void {
    if (this.closed || this.size === 0) return;
    this.fanOut();
    this.scheduleRest();
  }

  private turn(): void {
    this.scheduled = false;
    this.flush();
  }

  private scheduleRest(): void {
    if (this.size > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.turn());
    }
  }

  private fanOut(): void {
    const shares = this.take(performance.now());
    for (const [name, share] of shares) {
      try {
        publishShare(this.hub, name, share);
      } catch (err) {
        wsMetrics.skipped.inc({ stream: 'tape' }, share.items.length);
        log.warn({ err, channel: name }, 'feed trades skipped');
      }
    }
  }

  /** Up to FANOUT_CHUNK trades young enough to send, and every stale one before them, grouped by channel in order. */
  private take(now: number): Map<string, ChannelShare> {
    const shares = new Map<string, ChannelShare>();
    let fresh = 0;
    let dropped = 0;
    while (this.head < this.entries.length && fresh < FANOUT_CHUNK) {
      const e = this.entries[this.head++] as Entry;
      let share = shares.get(e.name);
      if (share === undefined) shares.set(e.name, (share = { items: [], at: e.at }));
      if (now - e.at > this.maxAgeMs) {
        share.items.push(null);
        dropped++;
      } else {
        share.items.push(JSON.stringify(tapeRow(e.trade)));
        fresh++;
      }
    }
    if (dropped > 0) wsMetrics.dropped.inc({ stream: 'tape' }, dropped);
    if (this.head === this.entries.length) {
      this.entries = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    return shares;
  }
}

/** A channel's share of a chunk, in order: each run of sent trades as one publishMany, each run of dropped ones as a seq gap. */
function publishShare(hub: FeedHub, name: string, share: ChannelShare): void {
  const { items } = share;
  let i = 0;
  while (i < items.length) {
    let j = i;
    if (items[i] === null) {
      while (j < items.length && items[j] === null) j++;
      hub.markDropped(name, j - i);
    } else {
      const run: string[] = [];
      for (; j < items.length; j++) {
        const d = items[j];
        if (d === null || d === undefined) break;
        run.push(d);
      }
      hub.publishMany(name, run, share.at);
    }
    i = j;
  }
}
