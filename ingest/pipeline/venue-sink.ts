import { createHash } from 'node:crypto';
import type { MarketEvent } from '../../schemas/events.ts';
import { observeVenueLag } from '../ws/metrics.ts';
import type { EventPublisher } from './event-publisher.ts';

/**
 * What one venue hands to the publisher: its normalized events (with the venue-lag metric) and its dead letters.
 * Both return the publisher's backpressure promise (undefined when below the high-water mark): the caller stops
 * reading its source until it settles.
 */
export class VenueSink {
  constructor(
    readonly venue: string,
    private readonly publisher: EventPublisher,
  ) {}

  publish(events: readonly MarketEvent[], receivedAt: number): Promise<void> | undefined {
    if (events.length === 0) return undefined;
    for (const e of events) if (e.type === 'option_trade' || e.type === 'perp_trade') observeVenueLag(this.venue, e.event.ts, receivedAt);
    return this.publisher.add(events);
  }

  deadLetter(connection: string, channel: string, reason: string, raw: string, encoding: 'utf8' | 'base64', receivedAt: number): Promise<void> | undefined {
    const venue = this.venue;
    // The connection is part of the id: one frame received on two connections in the same ms is two dead letters.
    const id = createHash('sha1').update(`${venue}\n${connection}\n${receivedAt}\n${raw}`).digest('hex');
    return this.publisher.deadLetter({ venue, channel, reason, raw, encoding, receivedAt, id });
  }
}
