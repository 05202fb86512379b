import { EVENT_FAMILIES } from '../families.ts';
import { avroRecord, type AvroSchemaJson } from './from-family.ts';
import { V1_EVENT_SCHEMAS } from './writer-history-v1.ts';

export type { AvroSchemaJson };

export const AVRO_FAMILIES = [
  'instrument',
  'option_trade',
  'option_ticker',
  'linear_trade',
  'perp_stats',
  'liquidation',
  'index',
  'dead_letter',
  'snapshot',
] as const satisfies readonly (keyof typeof EVENT_FAMILIES)[];
export type AvroFamily = (typeof AVRO_FAMILIES)[number];

/**
 * Avro schemas of the bus events, one record per family, generated from the family declarations
 * (schemas/families.ts), so field names and types are those of schemas/events.ts by construction.
 * Evolution rule: changes are additive with defaults (a new field is `optional(...)`: default null); never rename
 * or remove a field without an alias. Old writer schemas stay in WRITER_HISTORY so their bytes can be resolved.
 */
export const EVENT_SCHEMAS: Readonly<Record<AvroFamily, AvroSchemaJson>> = Object.fromEntries(
  AVRO_FAMILIES.map((f) => [f, avroRecord(EVENT_FAMILIES[f])]),
) as Record<AvroFamily, AvroSchemaJson>;

/**
 * Writer schemas of earlier releases, kept so bytes written by them still decode (the codec registers every entry
 * by fingerprint; an entry equal to the current schema is the current writer). Adding an optional field to a
 * declaration needs no entry here: the frozen v1 schemas are always registered.
 */
export const WRITER_HISTORY: readonly { readonly family: AvroFamily; readonly schema: AvroSchemaJson }[] = AVRO_FAMILIES.map((family) => ({
  family,
  schema: V1_EVENT_SCHEMAS[family],
}));
