import type { ConsumedBatch } from './types.ts';
import type { BusMetrics } from './bus-metrics.ts';
import type { Logger } from '../log.ts';

/** What both consumer implementations (memory and Kafka) are built with. */
export interface ConsumerCommonOptions<Self> {
  readonly topics: readonly string[];
  readonly maxBatchSize: number;
  readonly retryBackoffMs: number;
  readonly eachBatch: (batch: ConsumedBatch) => Promise<void>;
  readonly onAssignment?: (assigned: readonly { topic: string; partition: number }[]) => void;
  readonly metrics: BusMetrics;
  readonly log: Logger;
  /** Called once the member has left its group. */
  readonly onClosed: (consumer: Self) => void;
}
