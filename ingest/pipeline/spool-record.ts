/**
 * The on-disk form of one bus message in the publish spool (publish-spool.ts), little-endian:
 *   [u32 length of the rest][u32 meta length][meta: JSON {t: topic, k: key, h?: headers, ts?: timestamp}][value bytes]
 * A record cut short by a crash mid-write is not decoded (the reader stops before it).
 */
import type { BusMessage } from '#bus/types.ts';

export interface SpooledMessage {
  readonly topic: string;
  readonly message: BusMessage;
}

interface Meta {
  readonly t: string;
  readonly k: string;
  readonly h?: Readonly<Record<string, string>>;
  readonly ts?: number;
}

export function encodeSpoolRecord(topic: string, m: BusMessage): Buffer {
  const meta: Meta = {
    t: topic,
    k: m.key,
    ...(m.headers ? { h: m.headers } : {}),
    ...(m.timestamp !== undefined ? { ts: m.timestamp } : {}),
  };
  const metaBytes = Buffer.from(JSON.stringify(meta), 'utf8');
  const out = Buffer.allocUnsafe(8 + metaBytes.length + m.value.length);
  out.writeUInt32LE(4 + metaBytes.length + m.value.length, 0);
  out.writeUInt32LE(metaBytes.length, 4);
  metaBytes.copy(out, 8);
  m.value.copy(out, 8 + metaBytes.length);
  return out;
}

function isMeta(v: unknown): v is Meta {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o['t'] === 'string' && typeof o['k'] === 'string' && (o['ts'] === undefined || typeof o['ts'] === 'number');
}

/**
 * The complete records of `buf` (at most `max`), and the bytes they span; `corrupt` when a record's length or
 * meta cannot be read (the rest of the buffer is then unusable).
 */
export function decodeSpoolRecords(buf: Buffer, max: number): { records: SpooledMessage[]; used: number; corrupt: boolean } {
  const records: SpooledMessage[] = [];
  let at = 0;
  while (records.length < max && at + 8 <= buf.length) {
    const len = buf.readUInt32LE(at);
    const metaLen = buf.readUInt32LE(at + 4);
    if (len < 4 || metaLen > len - 4) return { records, used: at, corrupt: true };
    if (at + 4 + len > buf.length) break;
    let meta: unknown;
    try {
      meta = JSON.parse(buf.toString('utf8', at + 8, at + 8 + metaLen));
    } catch {
      return { records, used: at, corrupt: true };
    }
    if (!isMeta(meta)) return { records, used: at, corrupt: true };
    const value = Buffer.from(buf.subarray(at + 8 + metaLen, at + 4 + len));
    const message: BusMessage = {
      key: meta.k,
      value,
      ...(meta.h ? { headers: meta.h } : {}),
      ...(meta.ts !== undefined ? { timestamp: meta.ts } : {}),
    };
    records.push({ topic: meta.t, message });
    at += 4 + len;
  }
  return { records, used: at, corrupt: false };
}
