import type { BusMessage } from './types.ts';
import { MemoryPartition } from './memory-partition.ts';
import { partitionForKey } from './murmur2.ts';

/** What a topic needs from a consumer group that reads it. */
export interface TopicReader {
  /** Committed offset of the group on one partition (the retention floor it holds). */
  committedOffset(topic: string, partition: number): number;
  /** New messages were appended to the topic. */
  onData(topic: string): void;
}

/**
 * An in-process topic: N partitions, partition = Kafka's murmur2 partition of the key. Retention: a message is
 * freed once every group that ever subscribed has committed past it; a topic no group reads keeps its newest
 * `capacity` messages per partition (like size retention). Publishing into a partition that holds `capacity`
 * uncommitted messages waits (backpressure).
 */
export class MemoryTopic {
  readonly partitions: readonly MemoryPartition[];
  private readonly readers = new Set<TopicReader>();

  constructor(
    readonly name: string,
    partitionCount: number,
    private readonly capacity: number,
  ) {
    this.partitions = Array.from({ length: partitionCount }, (_, p) => new MemoryPartition(name, p, capacity));
  }

  get partitionCount(): number {
    return this.partitions.length;
  }

  /** Append the messages; resolves at once unless a partition is full, then when every message is appended. */
  publish(messages: readonly BusMessage[]): Promise<void> | undefined {
    const now = Date.now();
    const count = this.partitions.length;
    const unbounded = this.readers.size === 0;
    let blocked: Map<number, BusMessage[]> | undefined;
    for (const message of messages) {
      const p = partitionForKey(message.key, count);
      const part = this.partitions[p];
      if (!part) continue;
      const queued = blocked?.get(p);
      if (queued) {
        queued.push(message);
        continue;
      }
      if (unbounded && !part.hasRoom()) part.trimTo(part.end - this.capacity + 1);
      if (part.hasRoom()) part.append(message, now);
      else (blocked ??= new Map()).set(p, [message]);
    }
    this.notify();
    if (!blocked) return undefined;
    const waits: Promise<void>[] = [];
    for (const [p, list] of blocked) {
      const part = this.partitions[p];
      if (part) waits.push(part.appendWhenRoom(list, now));
    }
    return Promise.all(waits).then(() => undefined);
  }

  addReader(reader: TopicReader): void {
    this.readers.add(reader);
  }

  /** A group committed on `partition`: free what every group has committed, let queued publishes in. */
  onCommit(partition: number): void {
    const part = this.partitions[partition];
    if (!part) return;
    let floor = Number.POSITIVE_INFINITY;
    for (const reader of this.readers) floor = Math.min(floor, reader.committedOffset(this.name, partition));
    if (Number.isFinite(floor) && part.trimTo(floor)) this.notify();
  }

  failPending(err: Error): void {
    for (const part of this.partitions) part.failPending(err);
  }

  private notify(): void {
    for (const reader of this.readers) reader.onData(this.name);
  }
}
