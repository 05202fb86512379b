import { avroCodec, type AvroCodec } from './avro/codec.ts';
import type { AvroFamily } from './avro/event-schemas.ts';
import { TOPICS, eventKey, type MarketEvent, type MarketEventType, type DeadLetter, type AnalyticsSnapshot } from './events.ts';

/** Structurally a bus message (schemas/ sits below ops/ and does not import it). */
export interface EncodedMessage {
  readonly key: string;
  readonly value: Buffer;
  readonly timestamp: number;
}

/** Avro family of each normalized event type (perp and spot trades share the LinearTrade record). */
export const FAMILY_OF: Readonly<Record<MarketEventType, AvroFamily>> = {
  instrument: 'instrument',
  option_trade: 'option_trade',
  option_ticker: 'option_ticker',
  perp_trade: 'linear_trade',
  spot_trade: 'linear_trade',
  perp_stats: 'perp_stats',
  liquidation: 'liquidation',
  index: 'index',
};

const TYPE_OF_TOPIC: ReadonlyMap<string, MarketEventType> = new Map(
  (Object.keys(FAMILY_OF) as MarketEventType[]).map((t) => [TOPICS[t], t]),
);

export function marketEventTypeOfTopic(topic: string): MarketEventType | undefined {
  return TYPE_OF_TOPIC.get(topic);
}

/** Topic, key and Avro value of a normalized event. */
export function encodeMarketEvent(e: MarketEvent, codec: AvroCodec = avroCodec()): { topic: string; message: EncodedMessage } {
  return {
    topic: TOPICS[e.type],
    message: { key: eventKey(e.event), value: codec.encode(FAMILY_OF[e.type], e.event), timestamp: e.event.receivedAt },
  };
}

/** Decode a message of a market-data topic back into its tagged event. Throws AvroDecodeError on bad bytes. */
export function decodeMarketEvent(topic: string, value: Buffer, codec: AvroCodec = avroCodec()): MarketEvent {
  const type = marketEventTypeOfTopic(topic);
  if (!type) throw new Error(`not a market-data topic: ${topic}`);
  const event = codec.decodeAs<MarketEvent['event']>(FAMILY_OF[type], value);
  return { type, event } as MarketEvent;
}

export function encodeDeadLetter(d: DeadLetter, codec: AvroCodec = avroCodec()): EncodedMessage {
  return { key: d.venue, value: codec.encode('dead_letter', d), timestamp: d.receivedAt };
}

export function encodeSnapshot(s: AnalyticsSnapshot, codec: AvroCodec = avroCodec()): EncodedMessage {
  return { key: s.symbol, value: codec.encode('snapshot', s), timestamp: s.computedAt };
}
