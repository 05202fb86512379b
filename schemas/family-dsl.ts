/**
 * A small typed language for declaring an event family ONCE (schemas/families.ts). From one declaration:
 * - the TypeScript event type is inferred (`EventOf`, below),
 * - the Avro record is generated (schemas/avro/from-family.ts),
 * - the ClickHouse row type, columns and row mapper are derived (clickhouse/rows.ts, clickhouse/columns.ts).
 *
 * Each field has a name (camelCase, as on the bus), a logical type, an optional doc and, where ClickHouse needs
 * more than the logical type says, a column hint. The column name is always snake_case of the field name.
 */

export type LogicalType =
  | StringType
  | EnumType
  | { readonly kind: 'double' }
  | { readonly kind: 'long' }
  | { readonly kind: 'timestamp-ms' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'optional'; readonly of: LogicalType }
  | { readonly kind: 'array'; readonly of: LogicalType };

/** A string; `values` (when given) narrows the TypeScript type only: on the bus and in ClickHouse it is a string. */
export interface StringType {
  readonly kind: 'string';
  readonly values?: readonly string[];
}

/** An Avro enum (named type); a LowCardinality(String) in ClickHouse. */
export interface EnumType {
  readonly kind: 'enum';
  readonly name: string;
  readonly symbols: readonly string[];
}

export interface FieldDecl<N extends string = string, T extends LogicalType = LogicalType> {
  readonly name: N;
  readonly type: T;
  readonly doc?: string;
  /** Avro default of a required field (an optional field always defaults to null). */
  readonly avroDefault?: string | number | boolean;
  /** A string column stored as LowCardinality(String) (categorical: venue, symbol, currency, ...). */
  readonly lowCardinality?: boolean;
  /**
   * Added after v1 (`added(optional(...))`): the event property may be absent (`?: T | null`), the Avro field is
   * appended after the v1 fields with default null, and the row mapper stores a missing value as NULL.
   */
  readonly added?: true;
}

export interface FamilyDecl<F extends readonly FieldDecl[] = readonly FieldDecl[]> {
  /** Avro record name and namespace (part of the schema fingerprint: never change them). */
  readonly record: string;
  readonly namespace: string;
  readonly doc: string;
  readonly fields: F;
}

/** Column options of a field: its doc and ClickHouse hints. */
export interface FieldOptions {
  readonly doc?: string;
  readonly lowCardinality?: boolean;
  readonly avroDefault?: string | number | boolean;
}

function field<const N extends string, const T extends LogicalType>(name: N, type: T, opts: FieldOptions = {}): FieldDecl<N, T> {
  return { name, type, ...opts };
}

export const string = <const N extends string>(name: N, opts?: FieldOptions): FieldDecl<N, { readonly kind: 'string' }> =>
  field(name, { kind: 'string' }, opts);

/** A string whose TypeScript type is one of `values` (e.g. VENUES); not checked on the bus. */
export const stringOf = <const N extends string, const V extends string>(
  name: N,
  values: readonly V[],
  opts?: FieldOptions,
): FieldDecl<N, { readonly kind: 'string'; readonly values: readonly V[] }> => field(name, { kind: 'string', values }, opts);

export const enumOf = <const N extends string, const S extends string>(
  name: N,
  enumName: string,
  symbols: readonly S[],
  opts?: FieldOptions,
): FieldDecl<N, { readonly kind: 'enum'; readonly name: string; readonly symbols: readonly S[] }> =>
  field(name, { kind: 'enum', name: enumName, symbols }, opts);

export const double = <const N extends string>(name: N, opts?: FieldOptions): FieldDecl<N, { readonly kind: 'double' }> =>
  field(name, { kind: 'double' }, opts);

export const long = <const N extends string>(name: N, opts?: FieldOptions): FieldDecl<N, { readonly kind: 'long' }> =>
  field(name, { kind: 'long' }, opts);

/** Epoch milliseconds, UTC (Avro timestamp-millis, ClickHouse DateTime64(3, 'UTC')). */
export const timestampMs = <const N extends string>(name: N, opts?: FieldOptions): FieldDecl<N, { readonly kind: 'timestamp-ms' }> =>
  field(name, { kind: 'timestamp-ms' }, opts);

export const boolean = <const N extends string>(name: N, opts?: FieldOptions): FieldDecl<N, { readonly kind: 'boolean' }> =>
  field(name, { kind: 'boolean' }, opts);

/** The field, nullable: `null` when the venue did not publish it (Avro ["null", T] default null, ClickHouse Nullable). */
export function optional<N extends string, T extends LogicalType>(
  f: FieldDecl<N, T>,
): FieldDecl<N, { readonly kind: 'optional'; readonly of: T }> {
  return { ...f, type: { kind: 'optional', of: f.type } };
}

/**
 * A nullable field added after v1: only this declaration and one migration change (producers that do not fill it
 * and old fixtures still type-check). Must come after every v1 field (schemas/avro/from-family.ts checks).
 */
export function added<N extends string, T extends LogicalType>(
  f: FieldDecl<N, { readonly kind: 'optional'; readonly of: T }>,
): FieldDecl<N, { readonly kind: 'optional'; readonly of: T }> & { readonly added: true } {
  return { ...f, added: true };
}

/** The field as a list of its type (Avro array, ClickHouse Array). */
export function arrayOf<N extends string, T extends LogicalType>(
  f: FieldDecl<N, T>,
): FieldDecl<N, { readonly kind: 'array'; readonly of: T }> {
  return { ...f, type: { kind: 'array', of: f.type } };
}

/** TypeScript value of a logical type, as events carry it. */
export type TsOf<T> = T extends { readonly kind: 'string'; readonly values: readonly (infer V)[] }
  ? V
  : T extends { readonly kind: 'string' }
    ? string
    : T extends { readonly kind: 'enum'; readonly symbols: readonly (infer S)[] }
      ? S
      : T extends { readonly kind: 'double' | 'long' | 'timestamp-ms' }
        ? number
        : T extends { readonly kind: 'boolean' }
          ? boolean
          : T extends { readonly kind: 'optional'; readonly of: infer O }
            ? TsOf<O> | null
            : T extends { readonly kind: 'array'; readonly of: infer O }
              ? readonly TsOf<O>[]
              : never;

/** Value of a ClickHouse row column: the event's, with categorical strings widened to string (times stay epoch ms). */
export type RowValueOf<T> = WidenStrings<TsOf<T>>;
type WidenStrings<V> = V extends string ? string : V extends readonly (infer E)[] ? readonly WidenStrings<E>[] : V;

/** `receivedAt` -> `received_at` (type level; `snakeCase` is the value-level twin). */
export type SnakeCase<S extends string> = S extends `${infer C}${infer R}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<R>}`
  : '';

export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

type Fields<D> = D extends FamilyDecl<infer F> ? F[number] : never;

type IsAdded<K> = K extends { readonly added: true } ? true : false;

/** The event type a family declares: one readonly property per field (optional for fields `added` after v1). */
export type EventOf<D extends FamilyDecl> = Flatten<
  { readonly [K in Fields<D> as IsAdded<K> extends true ? never : K['name']]: TsOf<K['type']> } & {
    readonly [K in Fields<D> as IsAdded<K> extends true ? K['name'] : never]?: TsOf<K['type']>;
  }
>;
type Flatten<T> = { [K in keyof T]: T[K] };

/** The raw-table row of a family: snake_case columns. */
export type RowOf<D extends FamilyDecl> = { readonly [K in Fields<D> as SnakeCase<K['name']>]: RowValueOf<K['type']> };

/** Declares a family; keeps the literal field types for inference. */
export function family<const F extends readonly FieldDecl[]>(decl: FamilyDecl<F>): FamilyDecl<F> {
  return decl;
}
