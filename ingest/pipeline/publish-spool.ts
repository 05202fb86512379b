/**
 * The publisher's disk spool: a FIFO of encoded bus messages in segment files under one directory, so that while
 * the bus refuses or stalls the ingest process keeps reading its venues (their heartbeats answered, nothing left
 * in socket buffers) and publishes the backlog in order once the bus is back. Records are written in batches
 * (every 100 ms or 1 MiB), read back in order, and a segment is deleted once every batch taken from it was released
 * (published). A segment left by a previous process is read first when the next one starts: at least once, the
 * store collapses a message published twice.
 * One process per directory (a pid file guards it).
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { BusMessage } from '#bus/types.ts';
import { childLogger } from '#platform/log.ts';
import { ingestMetrics } from './ingest-metrics.ts';
import { processAlive } from '#platform/process-alive.ts';
import { decodeSpoolRecords, encodeSpoolRecord, type SpooledMessage } from './spool-record.ts';

export interface SpoolOptions {
  readonly dir: string;
  /** Above this many bytes on disk the publisher holds its callers back again (full spool). */
  readonly maxBytes: number;
  /** A segment file is closed and a new one started past this size. */
  readonly segmentBytes?: number;
}

interface Segment {
  readonly path: string;
  /** Bytes written to the file. */
  size: number;
  /** Bytes taken by readers. */
  readAt: number;
  /** Batches taken from it and not yet released. */
  open: number;
  /** No more writes (rolled over, or left by a previous process). */
  sealed: boolean;
}

/** A batch read from the spool: release it once every message of it was published. */
export interface SpoolBatch {
  readonly records: readonly SpooledMessage[];
  release(): void;
}

const SEGMENT_BYTES = 64 * 1024 * 1024;
const READ_CHUNK = 4 * 1024 * 1024;
const WRITE_BATCH_BYTES = 1024 * 1024;
const WRITE_LINGER_MS = 100;
const log = childLogger('publish-spool');

export class PublishSpool {
  readonly maxBytes: number;
  readonly #dir: string;
  readonly #segmentBytes: number;
  readonly #segments: Segment[] = [];
  #next = 1;
  #writing: { segment: Segment; fd: number } | null = null;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #timer: NodeJS.Timeout | null = null;
  #diskBytes = 0;

  constructor(opts: SpoolOptions) {
    this.#dir = opts.dir;
    this.maxBytes = opts.maxBytes;
    this.#segmentBytes = opts.segmentBytes ?? SEGMENT_BYTES;
  }

  /** Takes the directory (throws when another live process holds it) and finds the segments a previous process left. */
  open(): this {
    mkdirSync(this.#dir, { recursive: true });
    const lock = join(this.#dir, 'owner.pid');
    if (existsSync(lock)) {
      const owner = Number(readFileSync(lock, 'utf8'));
      if (Number.isInteger(owner) && owner !== process.pid && processAlive(owner))
        throw new Error(`publish spool ${this.#dir} is in use by process ${owner}`);
    }
    writeFileSync(lock, String(process.pid));
    const names = readdirSync(this.#dir)
      .filter((n) => /^\d{12}\.spool$/.test(n))
      .sort();
    for (const name of names) {
      const path = join(this.#dir, name);
      const size = statSync(path).size;
      if (size === 0) {
        unlinkSync(path);
        continue;
      }
      this.#segments.push({ path, size, readAt: 0, open: 0, sealed: true });
      this.#diskBytes += size;
      this.#next = Math.max(this.#next, Number(name.slice(0, 12)) + 1);
    }
    ingestMetrics.spoolBytes.set(this.#diskBytes);
    if (this.#segments.length > 0)
      log.warn({ dir: this.#dir, segments: this.#segments.length, bytes: this.#diskBytes }, 'publish spool left by a previous process');
    return this;
  }

  /** Bytes held: on disk and waiting to be written. */
  get bytes(): number {
    return this.#diskBytes + this.#pendingBytes;
  }

  /** True while some message was appended and not yet taken. */
  get hasUnread(): boolean {
    return this.#pendingBytes > 0 || this.#segments.some((s) => s.readAt < s.size);
  }

  append(topic: string, message: BusMessage): void {
    const rec = encodeSpoolRecord(topic, message);
    this.#pending.push(rec);
    this.#pendingBytes += rec.length;
    if (this.#pendingBytes >= WRITE_BATCH_BYTES || (this.#writing?.segment.size ?? 0) + this.#pendingBytes >= this.#segmentBytes)
      this.flush();
    else if (this.#timer === null) {
      this.#timer = setTimeout(() => this.flush(), WRITE_LINGER_MS);
      this.#timer.unref();
    }
  }

  /** Writes what is waiting (a synchronous write: the records are on disk when it returns). */
  flush(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#pendingBytes === 0) return;
    const data = this.#pending.length === 1 ? (this.#pending[0] as Buffer) : Buffer.concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    const w = this.#writer();
    for (let off = 0; off < data.length;) off += writeSync(w.fd, data, off, data.length - off);
    w.segment.size += data.length;
    this.#diskBytes += data.length;
    ingestMetrics.spoolBytes.set(this.#diskBytes);
    if (w.segment.size >= this.#segmentBytes) this.#seal();
  }

  /** Up to `max` messages in append order, or null when none is unread. */
  take(max: number): SpoolBatch | null {
    this.flush();
    const seg = this.#segments.find((s) => s.readAt < s.size);
    if (seg === undefined) {
      this.#dropFinished();
      return null;
    }
    const records = this.#read(seg, max);
    if (records.length === 0) return this.take(max);
    seg.open++;
    let released = false;
    return {
      records,
      release: () => {
        if (released) return;
        released = true;
        seg.open--;
        this.#dropFinished();
      },
    };
  }

  /** Writes what is waiting and lets the directory go (segments not yet released stay for the next process). */
  close(): void {
    this.flush();
    this.#seal();
    const lock = join(this.#dir, 'owner.pid');
    if (existsSync(lock) && readFileSync(lock, 'utf8') === String(process.pid)) unlinkSync(lock);
  }

  #writer(): { segment: Segment; fd: number } {
    if (this.#writing !== null) return this.#writing;
    const path = join(this.#dir, `${String(this.#next++).padStart(12, '0')}.spool`);
    const segment: Segment = { path, size: 0, readAt: 0, open: 0, sealed: false };
    this.#segments.push(segment);
    this.#writing = { segment, fd: openSync(path, 'a') };
    return this.#writing;
  }

  #seal(): void {
    if (this.#writing === null) return;
    closeSync(this.#writing.fd);
    this.#writing.segment.sealed = true;
    this.#writing = null;
  }

  /** Records from a segment's read position; a torn or corrupt tail is logged and passed over. */
  #read(seg: Segment, max: number): SpooledMessage[] {
    const fd = openSync(seg.path, 'r');
    try {
      let len = Math.min(READ_CHUNK, seg.size - seg.readAt);
      let buf = Buffer.allocUnsafe(len);
      readSync(fd, buf, 0, len, seg.readAt);
      let r = decodeSpoolRecords(buf, max);
      if (r.records.length === 0 && !r.corrupt && len >= 4) {
        // One record longer than a read chunk: read it whole.
        len = Math.min(4 + buf.readUInt32LE(0), seg.size - seg.readAt);
        buf = Buffer.allocUnsafe(len);
        readSync(fd, buf, 0, len, seg.readAt);
        r = decodeSpoolRecords(buf, max);
      }
      seg.readAt += r.used;
      if (r.corrupt || r.records.length === 0) {
        log.error(
          { segment: seg.path, at: seg.readAt, bytes: seg.size - seg.readAt, corrupt: r.corrupt },
          'publish spool: unreadable tail passed over',
        );
        seg.readAt = seg.size;
      }
      return r.records;
    } finally {
      closeSync(fd);
    }
  }

  /** Deletes the segments read to their end with no batch outstanding (the one being written too once it is idle). */
  #dropFinished(): void {
    for (let i = 0; i < this.#segments.length;) {
      const s = this.#segments[i] as Segment;
      const idleWriter = this.#writing?.segment === s && this.#pendingBytes === 0;
      if (s.readAt === s.size && s.open === 0 && (s.sealed || idleWriter)) {
        if (idleWriter) this.#seal();
        unlinkSync(s.path);
        this.#diskBytes -= s.size;
        this.#segments.splice(i, 1);
      } else i++;
    }
    ingestMetrics.spoolBytes.set(this.#diskBytes);
  }
}
