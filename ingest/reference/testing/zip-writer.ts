import { crc32, deflateRawSync } from 'node:zlib';

/** Test helper (not used at run time): writes ZIP archives to exercise ingest/reference/zip.ts. */

export interface Member {
  readonly name: string;
  readonly data: Buffer;
  readonly method?: 0 | 8;
  readonly flags?: number;
}

/** A minimal ZIP writer for the tests: local headers + data, central directory, end record (PKWARE APPNOTE 4.3). */
export function zip(members: readonly Member[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const method = m.method ?? 8;
    const body = method === 8 ? deflateRawSync(m.data) : m.data;
    const name = Buffer.from(m.name);
    // Local header and central entry share the fields from `flags` to the name length (at +6 and +8).
    const shared = (buf: Buffer, at: number): void => {
      buf.writeUInt16LE(m.flags ?? 0, at);
      buf.writeUInt16LE(method, at + 2);
      buf.writeUInt32LE(crc32(m.data), at + 8);
      buf.writeUInt32LE(body.length, at + 12);
      buf.writeUInt32LE(m.data.length, at + 16);
      buf.writeUInt16LE(name.length, at + 20);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    shared(local, 6);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    shared(central, 8);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}
