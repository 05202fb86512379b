import {
  ANALYTICS_SNAPSHOT,
  DEAD_LETTER,
  INDEX_PRICE,
  INSTRUMENT,
  LINEAR_TRADE,
  LIQUIDATION,
  OPTION_TICKER,
  OPTION_TRADE,
  PERP_STATS,
} from '../families.ts';
import { avroRecord, type AvroSchemaJson } from './from-family.ts';

export type { AvroSchemaJson };

export const AVRO_FAMILIES = ['instrument', 'option_trade', 'option_ticker', 'linear_trade', 'perp_stats', 'liquidation', 'index', 'dead_letter', 'snapshot'] as const;
export type AvroFamily = (typeof AVRO_FAMILIES)[number];

/**
 * Avro schemas of the bus events, one record per family, generated from the family declarations
 * (schemas/families.ts), so field names and types are those of schemas/events.ts by construction.
 * Evolution rule: changes are additive with defaults (a new field is `optional(...)`: default null); never rename
 * or remove a field without an alias. Old writer schemas stay in WRITER_HISTORY so their bytes can be resolved.
 */
export const EVENT_SCHEMAS: Readonly<Record<AvroFamily, AvroSchemaJson>> = {
  instrument: avroRecord(INSTRUMENT),
  option_trade: avroRecord(OPTION_TRADE),
  option_ticker: avroRecord(OPTION_TICKER),
  linear_trade: avroRecord(LINEAR_TRADE),
  perp_stats: avroRecord(PERP_STATS),
  liquidation: avroRecord(LIQUIDATION),
  index: avroRecord(INDEX_PRICE),
  dead_letter: avroRecord(DEAD_LETTER),
  snapshot: avroRecord(ANALYTICS_SNAPSHOT),
};

/**
 * Writer schemas of earlier releases, kept so bytes written by them still decode. Empty at v1; when a schema
 * changes, append its previous form here (the codec registers every entry by fingerprint).
 */
export const WRITER_HISTORY: readonly { readonly family: AvroFamily; readonly schema: AvroSchemaJson }[] = [];
