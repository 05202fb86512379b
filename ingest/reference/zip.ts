import { crc32, inflateRawSync } from 'node:zlib';

/**
 * Reads the one text member of a ZIP archive (the CFTC's yearly COT downloads: deacot2025.zip holds
 * annual.txt, fut_fin_txt_2025.zip FinFutYY.txt, fut_disagg_txt_2025.zip f_year.txt). Enough of the format
 * for such files: end-of-central-directory record, one central-directory entry (directory entries aside),
 * its local header, method stored (0) or deflate (8), sizes and CRC-32 checked. Anything else (several
 * members, encryption, ZIP64, other methods, truncation) is a clear error string, never a throw.
 */

export interface ZipMember {
  readonly name: string;
  readonly bytes: Buffer;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** True when the bytes start like a ZIP archive (local file header signature `PK\x03\x04`). */
export const isZip = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

function findEocd(buf: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65535 bytes, at the end of the archive.
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) if (buf.readUInt32LE(i) === EOCD) return i;
  return -1;
}

interface Entry {
  readonly name: string;
  readonly flags: number;
  readonly method: number;
  readonly crc: number;
  readonly compressed: number;
  readonly size: number;
  readonly localOffset: number;
}

function centralEntries(buf: Buffer, eocd: number): Entry[] | string {
  const count = buf.readUInt16LE(eocd + 10);
  let at = buf.readUInt32LE(eocd + 16);
  const entries: Entry[] = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > eocd || buf.readUInt32LE(at) !== CENTRAL) return 'corrupt zip: bad central directory';
    const nameLen = buf.readUInt16LE(at + 28);
    const skip = nameLen + buf.readUInt16LE(at + 30) + buf.readUInt16LE(at + 32);
    if (at + 46 + skip > eocd) return 'corrupt zip: bad central directory';
    entries.push({
      name: buf.toString('utf8', at + 46, at + 46 + nameLen),
      flags: buf.readUInt16LE(at + 8),
      method: buf.readUInt16LE(at + 10),
      crc: buf.readUInt32LE(at + 16),
      compressed: buf.readUInt32LE(at + 20),
      size: buf.readUInt32LE(at + 24),
      localOffset: buf.readUInt32LE(at + 42),
    });
    at += 46 + skip;
  }
  return entries;
}

function memberData(buf: Buffer, e: Entry): Buffer | string {
  if ((e.flags & 1) !== 0) return `zip member ${e.name} is encrypted`;
  if (e.compressed === 0xffffffff || e.size === 0xffffffff || e.localOffset === 0xffffffff) return 'ZIP64 archives are not read';
  if (e.method !== 0 && e.method !== 8) return `zip member ${e.name}: compression method ${e.method} not read (stored or deflate only)`;
  const at = e.localOffset;
  if (at + 30 > buf.length || buf.readUInt32LE(at) !== LOCAL) return 'corrupt zip: bad local header';
  const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  if (start + e.compressed > buf.length) return 'corrupt zip: member data truncated';
  const raw = buf.subarray(start, start + e.compressed);
  let data: Buffer;
  try {
    data = e.method === 0 ? raw : inflateRawSync(raw);
  } catch (err) {
    return `corrupt zip: ${e.name} does not inflate (${(err as Error).message})`;
  }
  if (data.length !== e.size) return `corrupt zip: ${e.name} is ${data.length} bytes, the directory says ${e.size}`;
  if (crc32(data) !== e.crc) return `corrupt zip: ${e.name} fails its CRC-32`;
  return data;
}

/** The single file member of the archive, or why not. */
export function readSingleMember(bytes: Uint8Array): ZipMember | string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = buf.length < 22 ? -1 : findEocd(buf);
  if (eocd < 0) return 'corrupt zip: no end-of-central-directory record (truncated?)';
  const entries = centralEntries(buf, eocd);
  if (typeof entries === 'string') return entries;
  const files = entries.filter((e) => !e.name.endsWith('/'));
  if (files.length !== 1) return `zip archive holds ${files.length} files (${files.map((e) => e.name).join(', ')}); expected exactly one`;
  const file = files[0] as Entry;
  const data = memberData(buf, file);
  return typeof data === 'string' ? data : { name: file.name, bytes: data };
}
