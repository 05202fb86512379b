import avro from 'avsc';

/**
 * `timestamp-millis` on a long: epoch milliseconds as a JS number (safe integer), as every normalized event
 * carries them. Accepts a Date when writing. avsc has no built-in logical types, so it is registered here.
 */
export class TimestampMillisType extends avro.types.LogicalType {
  override _fromValue(value: unknown): number {
    return value as number;
  }
  override _toValue(value: unknown): number | undefined {
    if (value instanceof Date) return value.getTime();
    if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
    return undefined;
  }
  override _resolve(type: avro.Type): ((value: unknown) => unknown) | undefined {
    if (avro.Type.isType(type, 'long', 'logical:timestamp-millis')) return (v) => v;
    return undefined;
  }
}

export const LOGICAL_TYPES = { 'timestamp-millis': TimestampMillisType } as const;
