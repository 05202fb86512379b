import avro from 'avsc';
import type { Schema, Type, Resolver } from 'avsc';
import { LOGICAL_TYPES } from './logical-types.ts';
import { rabinFingerprint64, fingerprintBytesLE } from './rabin-fingerprint.ts';
import { EVENT_SCHEMAS, WRITER_HISTORY, AVRO_FAMILIES, type AvroFamily, type AvroSchemaJson } from './event-schemas.ts';

/**
 * Avro single-object encoding: `C3 01` + CRC-64-AVRO fingerprint (8 bytes LE) of the writer schema's canonical
 * form + the Avro binary body. Decoding looks the writer schema up by fingerprint and resolves it to the
 * current reader schema of its family, so consumers read events written by older producers.
 */
const MAGIC0 = 0xc3;
const MAGIC1 = 0x01;
const HEADER = 10;
/** Size of the shared buffers encode() writes messages into. */
const ENCODE_POOL_BYTES = 256 * 1024;

export class AvroDecodeError extends Error {}

interface WriterEntry {
  readonly family: AvroFamily;
  readonly type: Type;
  /** Resolver from this writer to the family's current reader, or null when the writer is the reader. */
  readonly resolver: Resolver | null;
}

interface Reader {
  readonly type: Type;
  readonly header: Buffer;
  /** Fields whose default is null: an event may omit them (fields added after v1 are such). */
  readonly nullDefaults: readonly string[];
}

function nullDefaultFields(schema: AvroSchemaJson): readonly string[] {
  const fields = (schema as { fields?: readonly { name: string; default?: unknown }[] }).fields ?? [];
  return fields.filter((f) => f.default === null).map((f) => f.name);
}

/** The event with every omitted null-default field set to null (a copy only when one is missing). */
function withNulls(event: unknown, names: readonly string[]): unknown {
  if (typeof event !== 'object' || event === null) return event;
  const rec = event as Readonly<Record<string, unknown>>;
  let out: Record<string, unknown> | undefined;
  for (const n of names) {
    if (rec[n] === undefined) {
      out ??= { ...rec };
      out[n] = null;
    }
  }
  return out ?? event;
}

export function parseAvroType(schema: AvroSchemaJson): Type {
  return avro.Type.forSchema(schema as unknown as Schema, { logicalTypes: LOGICAL_TYPES, wrapUnions: false });
}

export function canonicalFingerprint(type: Type): bigint {
  return rabinFingerprint64(Buffer.from(JSON.stringify(type.schema()), 'utf8'));
}

export class AvroCodec {
  private readonly readers = new Map<AvroFamily, Reader>();
  private readonly writers = new Map<string, WriterEntry>();
  /** The same writers keyed by the 8 fingerprint bytes as a latin1 string (cheap to take from a message). */
  private readonly writersByHeader = new Map<string, WriterEntry>();
  private pool: Buffer = Buffer.allocUnsafe(ENCODE_POOL_BYTES);
  private poolPos = 0;

  constructor(
    schemas: Readonly<Record<AvroFamily, AvroSchemaJson>> = EVENT_SCHEMAS,
    history: readonly { readonly family: AvroFamily; readonly schema: AvroSchemaJson }[] = WRITER_HISTORY,
  ) {
    for (const family of AVRO_FAMILIES) {
      const type = parseAvroType(schemas[family]);
      const fp = canonicalFingerprint(type);
      const header = Buffer.concat([Buffer.from([MAGIC0, MAGIC1]), fingerprintBytesLE(fp)]);
      this.readers.set(family, { type, header, nullDefaults: nullDefaultFields(schemas[family]) });
      this.addWriter(fp, { family, type, resolver: null });
    }
    for (const old of history) this.registerWriter(old.family, old.schema);
  }

  /** Register an older writer schema of `family`; throws if it cannot be resolved to the current reader. */
  registerWriter(family: AvroFamily, schema: AvroSchemaJson): bigint {
    const reader = this.reader(family);
    const type = parseAvroType(schema);
    const fp = canonicalFingerprint(type);
    const key = fp.toString(16);
    if (!this.writers.has(key)) this.addWriter(fp, { family, type, resolver: reader.type.createResolver(type) });
    return fp;
  }

  fingerprint(family: AvroFamily): bigint {
    return this.reader(family).header.readBigUInt64LE(2);
  }

  /**
   * Header + body written straight into a shared pool buffer; the message is a view of it (no per-message
   * allocation or copy). A pool is never written again once handed out up to `poolPos`, so views stay valid.
   */
  encode(family: AvroFamily, event: unknown): Buffer {
    const r = this.reader(family);
    const value = withNulls(event, r.nullDefaults);
    for (let attempt = 0; attempt < 2; attempt++) {
      const start = this.poolPos;
      if (this.pool.length - start > HEADER) {
        r.header.copy(this.pool, start);
        const end = r.type.encode(value, this.pool, start + HEADER);
        if (end >= 0) {
          this.poolPos = end;
          return this.pool.subarray(start, end);
        }
      }
      // Not enough room left: a fresh pool (at least twice this message, whose size avsc reports as -end).
      this.pool = Buffer.allocUnsafe(Math.max(ENCODE_POOL_BYTES, 2 * (this.pool.length - start)));
      this.poolPos = 0;
    }
    return Buffer.concat([r.header, r.type.toBuffer(value)]);
  }

  /** Decode any registered writer's bytes into the family's current reader shape. */
  decode(buf: Buffer): { family: AvroFamily; value: unknown } {
    if (buf.length < HEADER || buf[0] !== MAGIC0 || buf[1] !== MAGIC1) {
      throw new AvroDecodeError('not an Avro single-object encoded message');
    }
    const w = this.writersByHeader.get(buf.toString('latin1', 2, HEADER));
    if (!w) throw new AvroDecodeError(`unknown writer schema fingerprint ${buf.readBigUInt64LE(2).toString(16)}`);
    const body = buf.subarray(HEADER);
    try {
      const value = w.resolver ? this.reader(w.family).type.fromBuffer(body, w.resolver) : w.type.fromBuffer(body);
      return { family: w.family, value };
    } catch (err) {
      throw new AvroDecodeError(`corrupt ${w.family} body: ${(err as Error).message}`);
    }
  }

  /** Decode and check the family (a consumer of one topic expects one family). */
  decodeAs<T>(family: AvroFamily, buf: Buffer): T {
    const d = this.decode(buf);
    if (d.family !== family) throw new AvroDecodeError(`expected ${family}, got ${d.family}`);
    return d.value as T;
  }

  private addWriter(fp: bigint, entry: WriterEntry): void {
    this.writers.set(fp.toString(16), entry);
    this.writersByHeader.set(fingerprintBytesLE(fp).toString('latin1'), entry);
  }

  private reader(family: AvroFamily): Reader {
    const r = this.readers.get(family);
    if (!r) throw new AvroDecodeError(`unknown family ${family}`);
    return r;
  }
}

let shared: AvroCodec | undefined;
/** The process-wide codec over the current schemas (building types is not free: build once). */
export function avroCodec(): AvroCodec {
  shared ??= new AvroCodec();
  return shared;
}
