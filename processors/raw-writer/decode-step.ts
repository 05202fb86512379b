import { createHash } from 'node:crypto';
import { TOPICS, type DeadLetter } from '#schemas/events.ts';
import { decodeMarketEvent } from '#schemas/event-codec.ts';
import { avroCodec } from '#schemas/avro/codec.ts';
import { toRawRow, deadLetterRow, RAW_TABLES, type RawRow, type RawTable } from '#clickhouse/rows.ts';
import type { ConsumedMessage } from '#bus/types.ts';

/**
 * One bus message -> one raw-table row. Tagged result: `row` for a decoded event (dead letters published by the
 * connectors included), `dead_letter` when the bytes on the bus cannot be decoded: the message is then stored in
 * dead_letters with its bytes (base64) rather than lost or crashing the stream.
 */
export type DecodeResult =
  | { readonly kind: 'row'; readonly table: RawTable; readonly row: RawRow }
  | { readonly kind: 'dead_letter'; readonly row: RawRow; readonly reason: string };

export function decodeStep(m: ConsumedMessage): DecodeResult {
  try {
    if (m.topic === TOPICS.dead_letter) {
      return { kind: 'row', table: RAW_TABLES.dead_letter, row: deadLetterRow(avroCodec().decodeAs<DeadLetter>('dead_letter', m.value)) };
    }
    const r = toRawRow(decodeMarketEvent(m.topic, m.value));
    return { kind: 'row', table: r.table, row: r.row };
  } catch (err) {
    const reason = `undecodable bus message: ${(err as Error).message}`;
    const letter: DeadLetter = {
      venue: m.key.split(':', 1)[0] ?? '',
      channel: `${m.topic}/${m.partition}`,
      reason,
      raw: m.value.toString('base64'),
      encoding: 'base64',
      receivedAt: m.timestamp,
      id: createHash('sha1').update(`${m.topic}:${m.partition}:${m.offset}`).digest('hex'),
    };
    return { kind: 'dead_letter', row: deadLetterRow(letter), reason };
  }
}
