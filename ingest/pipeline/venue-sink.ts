import { createHash } from 'node:crypto';
import type { MarketEvent } from '#schemas/events.ts';
import { duplicateTradesTotal, venueLagOf } from '../transport/metrics.ts';
import type { EventPublisher } from './event-publisher.ts';
import { RecentIds } from './recent-ids.ts';

/** Longest raw frame a dead letter keeps (characters; base64 text for binary frames): 64 Ki. */
export const DEAD_LETTER_RAW_MAX = 65_536;

/**
 * What one venue hands to the publisher: its normalized events (with the venue-lag metric) and its dead letters.
 * A trade-like event whose id this venue already published is dropped (counted): the live stream and a gap fill
 * after a reconnect can both carry it, and it must reach the store once. Both return the publisher's backpressure promise
 * (undefined when below the high-water mark): the caller stops
 * reading its source until it settles.
 */
export class VenueSink {
  private readonly recent = new RecentIds();
  private readonly lag;

  constructor(
    readonly venue: string,
    private readonly publisher: EventPublisher,
  ) {
    this.lag = venueLagOf(venue);
  }

  publish(events: readonly MarketEvent[], receivedAt: number): Promise<void> | undefined {
    return this.publishFresh(events, receivedAt).pressure;
  }

  /** As publish, and how many trade-like events were new (published) and how many were duplicates (dropped). */
  publishFresh(
    events: readonly MarketEvent[],
    receivedAt: number,
    observeLag = true,
  ): { pressure: Promise<void> | undefined; published: number; duplicates: number } {
    if (events.length === 0) return { pressure: undefined, published: 0, duplicates: 0 };
    const { fresh, duplicates } = this.recent.admit(events);
    if (duplicates > 0) duplicateTradesTotal.inc({ venue: this.venue }, duplicates);
    if (observeLag)
      for (const e of fresh) if (e.type === 'option_trade' || e.type === 'perp_trade') this.lag.observe(e.event.ts, receivedAt);
    return { pressure: fresh.length === 0 ? undefined : this.publisher.add(fresh), published: fresh.length, duplicates };
  }

  /**
   * A frame the parser refused. At most DEAD_LETTER_RAW_MAX characters of it are kept (an oversized frame would
   * exceed the bus's largest message and stall the dead-letter stream); the reason then says how large it was.
   */
  deadLetter(
    connection: string,
    channel: string,
    reason: string,
    raw: string,
    encoding: 'utf8' | 'base64',
    receivedAt: number,
  ): Promise<void> | undefined {
    const venue = this.venue;
    // The connection is part of the id: one frame received on two connections in the same ms is two dead letters.
    const id = createHash('sha1').update(`${venue}\n${connection}\n${receivedAt}\n${raw}`).digest('hex');
    const cut = raw.length > DEAD_LETTER_RAW_MAX;
    const kept = cut ? raw.slice(0, DEAD_LETTER_RAW_MAX) : raw;
    const why = cut
      ? `${reason} [frame of ${raw.length} ${encoding === 'base64' ? 'base64 ' : ''}characters; the first ${DEAD_LETTER_RAW_MAX} kept]`
      : reason;
    return this.publisher.deadLetter({ venue, channel, reason: why, raw: kept, encoding, receivedAt, id });
  }
}
