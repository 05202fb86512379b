import type { DeadLetter, MarketEvent } from '#schemas/events.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { EventPublisher } from '../event-publisher.ts';

/** Tests: keeps what a venue runner publishes (events, dead letters) instead of encoding it onto a bus. */
export class CapturingPublisher extends EventPublisher {
  readonly events: MarketEvent[] = [];
  readonly letters: DeadLetter[] = [];
  constructor() {
    super(new MemoryBus());
  }
  override add(events: readonly MarketEvent[]): undefined {
    this.events.push(...events);
    return undefined;
  }
  override deadLetter(d: DeadLetter): undefined {
    this.letters.push(d);
    return undefined;
  }
}
