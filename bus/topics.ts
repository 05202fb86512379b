import { TOPICS } from '#schemas/events.ts';
import type { Bus } from './types.ts';

/** Creates every topic of the product (idempotent). Market data is keyed by venue:symbol. */
export async function ensureProductTopics(bus: Bus, partitions: number): Promise<void> {
  await bus.ensureTopics(Object.values(TOPICS).map((name) => ({ name, partitions })));
}
