/**
 * Kafka's murmur2 key hash (org.apache.kafka.common.utils.Utils.murmur2) and its default partitioner choice
 * `toPositive(murmur2(utf8(key))) % partitions`. kafkajs' DefaultPartitioner computes the same value, so the
 * in-process bus and Kafka put one key on the same partition number.
 */

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** murmur2 of raw bytes, as a signed 32-bit integer (same as Java's `int`). */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i << 2;
    let k = (data[i4] ?? 0) | ((data[i4 + 1] ?? 0) << 8) | ((data[i4 + 2] ?? 0) << 16) | ((data[i4 + 3] ?? 0) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & ~3;
  const rest = length & 3;
  if (rest === 3) h ^= (data[tail + 2] ?? 0) << 16;
  if (rest >= 2) h ^= (data[tail + 1] ?? 0) << 8;
  if (rest >= 1) {
    h ^= data[tail] ?? 0;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

const asciiScratch = new Uint8Array(256);

/** murmur2 of a string's UTF-8 bytes; ASCII keys up to 256 chars avoid allocating a Buffer. */
export function murmur2String(key: string): number {
  const n = key.length;
  if (n <= asciiScratch.length) {
    let ascii = true;
    for (let i = 0; i < n; i++) {
      const c = key.charCodeAt(i);
      if (c > 0x7f) {
        ascii = false;
        break;
      }
      asciiScratch[i] = c;
    }
    if (ascii) return murmur2(asciiScratch.subarray(0, n));
  }
  return murmur2(Buffer.from(key, 'utf8'));
}

/** Kafka's default partition for a keyed message. */
export function partitionForKey(key: string, partitions: number): number {
  return (murmur2String(key) & 0x7fffffff) % partitions;
}
