/**
 * CRC-64-AVRO (Rabin) fingerprint of a schema's Parsing Canonical Form, as defined by the Avro specification
 * ("Schema Fingerprints"). Used by the single-object encoding header (C3 01 + 8 bytes little-endian).
 */
const EMPTY = 0xc15d213aa4d7a795n;
const MASK = 0xffffffffffffffffn;

const TABLE: readonly bigint[] = (() => {
  const t: bigint[] = [];
  for (let i = 0; i < 256; i++) {
    let fp = BigInt(i);
    for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & -(fp & 1n));
    t.push(fp & MASK);
  }
  return t;
})();

export function rabinFingerprint64(bytes: Uint8Array): bigint {
  let fp = EMPTY;
  for (const b of bytes) fp = (fp >> 8n) ^ (TABLE[Number((fp ^ BigInt(b)) & 0xffn)] as bigint);
  return fp & MASK;
}

/** The 8 fingerprint bytes in little-endian order, as the single-object encoding writes them. */
export function fingerprintBytesLE(fp: bigint): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(fp);
  return out;
}
