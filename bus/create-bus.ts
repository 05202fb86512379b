import type { Bus } from './types.ts';
import { KafkaBus, type KafkaBusOptions } from './kafka-bus.ts';
import { MemoryBus, type MemoryBusOptions } from './memory-bus.ts';

export interface CreateBusConfig {
  /** Kafka bootstrap brokers; unset or empty = the in-process bus. */
  readonly brokers?: readonly string[] | undefined;
  readonly clientId: string;
  /** Extra kafkajs tuning (session/heartbeat/rebalance timeouts, retries). */
  readonly kafka?: Omit<KafkaBusOptions, 'brokers' | 'clientId'>;
  /** Extra in-process bus tuning (capacity per partition, assignor, retry backoff). */
  readonly memory?: Omit<MemoryBusOptions, 'clientId'>;
}

/** Kafka when brokers are given, the in-process bus otherwise. */
export function createBus(config: CreateBusConfig): Bus {
  if (config.brokers && config.brokers.length > 0) {
    return new KafkaBus({ ...config.kafka, brokers: config.brokers, clientId: config.clientId });
  }
  return new MemoryBus({ ...config.memory, clientId: config.clientId });
}
