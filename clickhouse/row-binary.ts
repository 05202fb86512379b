/**
 * Decoder of ClickHouse's RowBinaryWithNamesAndTypes output into typed columns (the compact read path of
 * Store.queryColumns): no text formatting or number parsing on either side, and numeric columns land in
 * Float64Arrays (no per-value JS objects). Supported column types: (U)Int8-64, Float32/64, Bool, Date, DateTime
 * (Unix seconds), String, LowCardinality(String), Nullable of any of them and SimpleAggregateFunction(f, T) of
 * any of them (sent as T). 64-bit integers become doubles (exact up to 2^53: counts and epoch milliseconds;
 * use toString() in SQL for larger ones). Any other type is an error naming it.
 */

export type Cell = number | string | null;

export interface NumberColumn {
  readonly kind: 'number';
  readonly values: Float64Array;
  /** 1 where the value is NULL (then `values` holds 0); null when the column is not Nullable. */
  readonly nulls: Uint8Array | null;
}

export interface StringColumn {
  readonly kind: 'string';
  readonly values: readonly (string | null)[];
}

/**
 * A String column kept as the bytes of the result it was read from (`Store.queryColumns` option `views`): value i is
 * the UTF-8 of bytes[starts[i], ends[i]), made into a string only when read (`textAt`). For large strings read once
 * (a packed snapshot): no string per value is made until it is wanted, so none outlives its use. Valid until the
 * result is released (`Store.releaseColumns`).
 */
export interface BytesColumn {
  readonly kind: 'bytes';
  /** The result's bytes (a Buffer view of them: no copy). */
  readonly bytes: Buffer;
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  /** 1 where the value is NULL (its range empty); null when the column is not Nullable. */
  readonly nulls: Uint8Array | null;
}

export type ResultColumn = NumberColumn | StringColumn | BytesColumn;

export interface ColumnsResult {
  readonly names: readonly string[];
  readonly rows: number;
  readonly columns: Readonly<Record<string, ResultColumn>>;
}

/** The text of row `i` of a bytes column (null for NULL). */
export function textAt(col: BytesColumn, i: number): string | null {
  if (col.nulls !== null && col.nulls[i] === 1) return null;
  return col.bytes.toString('utf8', col.starts[i], col.ends[i]);
}

/** The bytes of row `i` of a bytes column, a view of the result's (null for NULL): valid until the result is released. */
export function bytesAt(col: BytesColumn, i: number): Buffer | null {
  if (col.nulls !== null && col.nulls[i] === 1) return null;
  return col.bytes.subarray(col.starts[i], col.ends[i]);
}

/** Byte length of row `i` of a bytes column. */
export const byteLengthAt = (col: BytesColumn, i: number): number => (col.ends[i] as number) - (col.starts[i] as number);

/** The value at row `i` of a column: a number, a string or null. */
export function cellAt(col: ResultColumn, i: number): Cell {
  if (col.kind === 'string') return col.values[i] ?? null;
  if (col.kind === 'bytes') return textAt(col, i);
  return col.nulls !== null && col.nulls[i] === 1 ? null : (col.values[i] ?? null);
}

/**
 * The column `name` of a result, of `kind`: a reader's own SQL names and types its columns, so a missing or
 * differently typed column is a bug, thrown with `reader` (e.g. 'tape read') in the message.
 */
export function columnOf<K extends ResultColumn['kind']>(
  r: ColumnsResult,
  name: string,
  kind: K,
  reader: string,
): Extract<ResultColumn, { kind: K }> {
  const c = r.columns[name];
  if (c?.kind !== kind) throw new Error(`${reader}: column ${name} missing or not a ${kind} column`);
  return c as Extract<ResultColumn, { kind: K }>;
}

const T = { U8: 0, I8: 1, U16: 2, I16: 3, U32: 4, I32: 5, U64: 6, I64: 7, F32: 8, F64: 9, Str: 10 } as const;
type T = (typeof T)[keyof typeof T];

const FIXED: Readonly<Record<string, T>> = {
  UInt8: T.U8,
  Bool: T.U8,
  Int8: T.I8,
  UInt16: T.U16,
  Date: T.U16,
  Int16: T.I16,
  UInt32: T.U32,
  Int32: T.I32,
  UInt64: T.U64,
  Int64: T.I64,
  Float32: T.F32,
  Float64: T.F64,
  String: T.Str,
};

interface ColumnType {
  readonly t: T;
  readonly nullable: boolean;
}

function typeOf(type: string, nullable = false): ColumnType {
  const inner = /^(Nullable|LowCardinality)\((.*)\)$/.exec(type);
  if (inner !== null) return typeOf(inner[2] ?? '', nullable || inner[1] === 'Nullable');
  const simple = /^SimpleAggregateFunction\([A-Za-z0-9_]+, (.*)\)$/.exec(type);
  if (simple !== null) return typeOf(simple[1] ?? '', nullable);
  if (/^DateTime(\('[^']*'\))?$/.test(type)) return { t: T.U32, nullable };
  const t = FIXED[type];
  if (t === undefined) throw new Error(`RowBinary: unsupported column type ${type}`);
  return { t, nullable };
}

/** Little-endian 64-bit integers as doubles (exact up to 2^53). */
const u64At = (v: DataView, p: number): number => v.getUint32(p, true) + v.getUint32(p + 4, true) * 4294967296;
const i64At = (v: DataView, p: number): number => v.getUint32(p, true) + v.getInt32(p + 4, true) * 4294967296;

/** The previous value of a string column: where its bytes are, and the decoded string. */
interface StringMemo {
  at: number;
  len: number;
  s: string | null;
}

function sameBytes(buf: Uint8Array, a: number, b: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (buf[a + i] !== buf[b + i]) return false;
  return true;
}

class Reader {
  pos = 0;
  private readonly view: DataView;
  /** The same bytes as a Buffer, for string slices without a Buffer object per value. */
  private readonly bytes: Buffer;
  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  }
  get done(): boolean {
    return this.pos >= this.buf.byteLength;
  }
  private need(n: number): number {
    const p = this.pos;
    if (p + n > this.buf.byteLength) throw new Error('RowBinary: truncated value');
    this.pos = p + n;
    return p;
  }
  byte(): number {
    return this.buf[this.need(1)] as number;
  }
  varint(): number {
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const b = this.byte();
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
    }
  }
  string(memo?: StringMemo): string {
    const len = this.varint();
    const p = this.need(len);
    if (memo === undefined) return this.bytes.toString('utf8', p, p + len);
    // A column repeating its previous value (venue lists, symbols) reuses that string: no decode.
    if (memo.s !== null && memo.len === len && sameBytes(this.buf, memo.at, p, len)) return memo.s;
    memo.at = p;
    memo.len = len;
    memo.s = this.bytes.toString('utf8', p, p + len);
    return memo.s;
  }
  number(t: T): number {
    const v = this.view;
    switch (t) {
      case T.U8:
        return v.getUint8(this.need(1));
      case T.I8:
        return v.getInt8(this.need(1));
      case T.U16:
        return v.getUint16(this.need(2), true);
      case T.I16:
        return v.getInt16(this.need(2), true);
      case T.U32:
        return v.getUint32(this.need(4), true);
      case T.I32:
        return v.getInt32(this.need(4), true);
      case T.F32:
        return v.getFloat32(this.need(4), true);
      case T.F64:
        return v.getFloat64(this.need(8), true);
      case T.U64:
        return u64At(v, this.need(8));
      case T.I64:
        return i64At(v, this.need(8));
      default:
        throw new Error('RowBinary: not a number type');
    }
  }
}

/** A growable column being filled row by row. */
class Builder {
  private nums = new Float64Array(1024);
  private nulls: Uint8Array | null;
  private readonly strs: (string | null)[] = [];
  private readonly memo: StringMemo = { at: 0, len: 0, s: null };
  constructor(private readonly type: ColumnType) {
    this.nulls = type.nullable && type.t !== T.Str ? new Uint8Array(1024) : null;
  }
  read(r: Reader, row: number): void {
    const isNull = this.type.nullable && r.byte() === 1;
    if (this.type.t === T.Str) {
      this.strs.push(isNull ? null : r.string(this.memo));
      return;
    }
    if (row === this.nums.length) this.grow();
    if (isNull) (this.nulls as Uint8Array)[row] = 1;
    else this.nums[row] = r.number(this.type.t);
  }
  private grow(): void {
    const nums = new Float64Array(this.nums.length * 2);
    nums.set(this.nums);
    this.nums = nums;
    if (this.nulls !== null) {
      const nulls = new Uint8Array(nums.length);
      nulls.set(this.nulls);
      this.nulls = nulls;
    }
  }
  finish(rows: number): ResultColumn {
    if (this.type.t === T.Str) return { kind: 'string', values: this.strs };
    return { kind: 'number', values: this.nums.subarray(0, rows), nulls: this.nulls === null ? null : this.nulls.subarray(0, rows) };
  }
}

const WIDTH: Readonly<Partial<Record<T, number>>> = {
  [T.U8]: 1,
  [T.I8]: 1,
  [T.U16]: 2,
  [T.I16]: 2,
  [T.U32]: 4,
  [T.I32]: 4,
  [T.U64]: 8,
  [T.I64]: 8,
  [T.F32]: 4,
  [T.F64]: 8,
};

/**
 * Every column fixed-width and not Nullable (the usual roll-up): rows have one stride, so each column is read
 * in its own tight loop at a fixed offset.
 */
function decodeFixed(buf: Uint8Array, start: number, types: readonly ColumnType[]): ResultColumn[] | null {
  const widths = types.map((c) => (c.nullable ? undefined : WIDTH[c.t]));
  if (widths.some((w) => w === undefined)) return null;
  const stride = widths.reduce<number>((a, w) => a + (w ?? 0), 0);
  const body = buf.byteLength - start;
  if (stride === 0 || body % stride !== 0) return null;
  const rows = body / stride;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let offset = start;
  return types.map((c, k) => {
    const values = readFixedColumn(view, c.t, offset, stride, rows);
    offset += widths[k] ?? 0;
    return { kind: 'number', values, nulls: null };
  });
}

/** One fixed-width column of `rows` rows at `offset`, `stride` bytes apart: one tight loop per type. */
function readFixedColumn(v: DataView, t: T, offset: number, stride: number, rows: number): Float64Array {
  const out = new Float64Array(rows);
  let p = offset;
  switch (t) {
    case T.F64:
      for (let i = 0; i < rows; i++, p += stride) out[i] = v.getFloat64(p, true);
      break;
    case T.F32:
      for (let i = 0; i < rows; i++, p += stride) out[i] = v.getFloat32(p, true);
      break;
    case T.U8:
      for (let i = 0; i < rows; i++, p += stride) out[i] = v.getUint8(p);
      break;
    case T.I8:
      for (let i = 0; i < rows; i++, p += stride) out[i] = v.getInt8(p);
      break;
    case T.U16:
      for (let i = 0; i < rows; i++, p += stride) out[i] = v.getUint16(p, true);
      break;
    case T.I16:
      for (let i = 0; i < rows; i++, p += stride) out[i] = v.getInt16(p, true);
      break;
    case T.U32:
      for (let i = 0; i < rows; i++, p += stride) out[i] = v.getUint32(p, true);
      break;
    case T.I32:
      for (let i = 0; i < rows; i++, p += stride) out[i] = v.getInt32(p, true);
      break;
    case T.U64:
      for (let i = 0; i < rows; i++, p += stride) out[i] = u64At(v, p);
      break;
    case T.I64:
      for (let i = 0; i < rows; i++, p += stride) out[i] = i64At(v, p);
      break;
    default:
      throw new Error('RowBinary: not a number type');
  }
  return out;
}

export function decodeRowBinary(buf: Uint8Array): ColumnsResult {
  if (buf.byteLength === 0) return { names: [], rows: 0, columns: {} };
  const r = new Reader(buf);
  const width = r.varint();
  const names = Array.from({ length: width }, () => r.string());
  const types = Array.from({ length: width }, () => typeOf(r.string()));
  const fixed = decodeFixed(buf, r.pos, types);
  if (fixed !== null) {
    const rows = fixed[0]?.kind === 'number' ? fixed[0].values.length : 0;
    return { names, rows, columns: Object.fromEntries(names.map((n, i) => [n, fixed[i] as ResultColumn])) };
  }
  const builders = types.map((t) => new Builder(t));
  let rows = 0;
  while (!r.done) {
    for (let c = 0; c < width; c++) (builders[c] as Builder).read(r, rows);
    rows++;
  }
  const columns: Record<string, ResultColumn> = {};
  names.forEach((n, i) => {
    columns[n] = (builders[i] as Builder).finish(rows);
  });
  return { names, rows, columns };
}
