import type { BusMessage, ConsumedMessage } from './types.ts';

const EMPTY_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
/** Compact the backing array once this many freed slots sit at its head (and they are at least half of it). */
const COMPACT_MIN = 4096;
/** What a freed slot holds until compaction (below `floor`, never read). */
const FREED: ConsumedMessage = Object.freeze({
  topic: '',
  partition: -1,
  offset: '-1',
  key: '',
  value: Buffer.alloc(0),
  headers: EMPTY_HEADERS,
  timestamp: 0,
});

interface PendingAppend {
  readonly messages: readonly BusMessage[];
  index: number;
  readonly timestamp: number;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

/**
 * One partition of an in-process topic: an append-only log with absolute offsets, trimmed from the head once
 * every consumer group has committed past a message (`trimTo`). Bounded: when `capacity` messages are retained,
 * appends queue (FIFO, so per-partition publish order holds) until a trim frees room.
 */
export class MemoryPartition {
  private items: ConsumedMessage[] = [];
  /** Absolute offset of items[0]. */
  private base = 0;
  /** Oldest retained offset; items below it are freed. */
  private floor = 0;
  private readonly pending: PendingAppend[] = [];

  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly capacity: number,
  ) {}

  /** Offset the next appended message gets (Kafka's log end offset). */
  get end(): number {
    return this.base + this.items.length;
  }

  /** Oldest offset still readable. */
  get earliest(): number {
    return this.floor;
  }

  get retained(): number {
    return this.end - this.floor;
  }

  hasRoom(): boolean {
    return this.pending.length === 0 && this.end - this.floor < this.capacity;
  }

  /** Append one message; the caller checked `hasRoom()`. */
  append(message: BusMessage, timestamp: number): void {
    this.items.push({
      topic: this.topic,
      partition: this.partition,
      offset: String(this.base + this.items.length),
      key: message.key,
      value: message.value,
      headers: message.headers ?? EMPTY_HEADERS,
      timestamp: message.timestamp ?? timestamp,
    });
  }

  /** Queue messages that did not fit; resolves once all of them are appended. */
  appendWhenRoom(messages: readonly BusMessage[], timestamp: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ messages, index: 0, timestamp, resolve, reject });
    });
  }

  /** Up to `max` messages from `from` (>= earliest). */
  read(from: number, max: number): ConsumedMessage[] {
    const start = from - this.base;
    const stop = Math.min(this.items.length, start + max);
    return start >= stop ? [] : this.items.slice(start, stop);
  }

  /**
   * Free every message below `offset` (never moves backwards), then append queued messages while there is room.
   * Returns true when queued messages were appended.
   */
  trimTo(offset: number): boolean {
    const target = Math.min(offset, this.end);
    if (target > this.floor) {
      // Drop the freed messages' references now, not at the next compaction: a value is often a view of a shared
      // encode pool (schemas/avro/codec.ts), and on a quiet topic that compaction can be thousands of messages
      // away, each pinning a whole pool (measured: +21 MB/min of ArrayBuffers in the demo before this).
      for (let i = this.floor - this.base, stop = target - this.base; i < stop; i++) this.items[i] = FREED;
      this.floor = target;
      const dead = this.floor - this.base;
      if (dead >= COMPACT_MIN && dead * 2 >= this.items.length) {
        this.items = this.items.slice(dead);
        this.base = this.floor;
      }
    }
    return this.drainPending();
  }

  /** Reject every queued append (bus closed). */
  failPending(err: Error): void {
    for (const p of this.pending.splice(0)) p.reject(err);
  }

  private drainPending(): boolean {
    let appended = false;
    while (this.pending.length > 0) {
      const head = this.pending[0];
      if (!head) break;
      while (head.index < head.messages.length && this.end - this.floor < this.capacity) {
        const m = head.messages[head.index++];
        if (m) this.append(m, head.timestamp);
        appended = true;
      }
      if (head.index < head.messages.length) break;
      this.pending.shift();
      head.resolve();
    }
    return appended;
  }
}
