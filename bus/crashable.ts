import type { BusConsumer } from './types.ts';

/**
 * A consumer that can simulate a crash: leave the group at once WITHOUT committing the in-flight batch (its
 * handler's result is ignored), as a process that died would. Both bus implementations provide it; tests and the
 * contract suite use it to prove redelivery.
 */
export interface CrashableConsumer extends BusConsumer {
  crash(): Promise<void>;
}

export function isCrashable(consumer: BusConsumer): consumer is CrashableConsumer {
  return typeof (consumer as Partial<CrashableConsumer>).crash === 'function';
}
