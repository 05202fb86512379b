/**
 * kafkajs restarts a crashed consumer only after a retriable error. After any other one it has left the group and
 * stays stopped while the process runs on, half-alive: a group coordinator that could not be found while the broker
 * was coming back (KafkaJSGroupCoordinatorNotFound is non-retriable) left the API's WebSocket levels feed dead after a
 * broker outage. ConsumerRevival runs such a consumer again after the shared backoff (REVIVAL_RETRY, up to 5 s), for
 * as long as its owner still wants it running, and counts it (gex_bus_consumer_restarts_total).
 */
import type { Logger } from '#platform/log.ts';
import { Backoff, type RetryPolicy } from '#platform/steps/retry-policy.ts';

export const REVIVAL_RETRY: RetryPolicy = { baseMs: 500, maxMs: 5_000 };

export interface RevivalOptions {
  readonly groupId: string;
  readonly log: Logger;
  /** True while the member should be consuming (not stopping or stopped). */
  readonly wanted: () => boolean;
  /** Runs the consumer again (kafkajs `consumer.run` with the member's run configuration). */
  readonly run: () => Promise<void>;
  readonly onRestart: () => void;
}

export class ConsumerRevival {
  readonly #backoff = new Backoff(REVIVAL_RETRY);
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: RevivalOptions) {}

  /** kafkajs stopped the consumer for good after `err`: run it again after the backoff. */
  crashed(err: unknown): void {
    if (!this.o.wanted() || this.#timer !== null) return;
    const delay = this.#backoff.next();
    this.o.log.warn({ err, group: this.o.groupId, inMs: delay }, 'kafka consumer stopped after a non-retriable error; running it again');
    this.#timer = setTimeout(() => void this.#rerun(), delay);
  }

  /** The member joined its group: the next revival starts from the shortest delay again. */
  joined(): void {
    this.#backoff.reset();
  }

  cancel(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #rerun(): Promise<void> {
    this.#timer = null;
    if (!this.o.wanted()) return;
    this.o.onRestart();
    try {
      await this.o.run();
    } catch (err) {
      this.crashed(err);
    }
  }
}
