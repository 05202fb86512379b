import type { MessagePort } from 'node:worker_threads';
import type { Bus, BusConsumer, BusMessage, TopicSpec } from '#bus/types.ts';
import { packMessages, packTransfer, type ThreadRequest } from './protocol.ts';

/**
 * The bus as the ingest thread sees it: a publish is handed to the thread that owns the real bus and resolves
 * when that bus took it (or rejects with its error, which the publisher retries like any refused publish).
 * Ingest only publishes; subscribing and lag belong to the owner's bus.
 */
export class PortBus implements Bus {
  readonly kind = 'memory' as const;
  readonly #port: MessagePort;
  readonly #pending = new Map<number, { resolve(): void; reject(err: Error): void }>();
  #nextId = 1;
  #closed = false;

  constructor(port: MessagePort) {
    this.#port = port;
  }

  /** The owner's answer to a publish. */
  settle(id: number, error: string | undefined): void {
    const p = this.#pending.get(id);
    if (p === undefined) return;
    this.#pending.delete(id);
    if (error === undefined) p.resolve();
    else p.reject(new Error(error));
  }

  ensureTopics(_topics: readonly TopicSpec[]): Promise<void> {
    return Promise.resolve();
  }

  publish(topic: string, messages: readonly BusMessage[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the ingest thread bus is closed'));
    if (messages.length === 0) return Promise.resolve();
    const id = this.#nextId++;
    const packed = packMessages(messages);
    return new Promise<void>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      const request: ThreadRequest = { kind: 'publish', id, topic, packed };
      this.#port.postMessage(request, packTransfer(packed));
    });
  }

  subscribe(): Promise<BusConsumer> {
    return Promise.reject(new Error('the ingest thread only publishes'));
  }

  lag(): Promise<readonly { partition: number; committed: string; end: string }[]> {
    return Promise.reject(new Error('the ingest thread only publishes'));
  }

  close(): Promise<void> {
    this.#closed = true;
    for (const p of this.#pending.values()) p.reject(new Error('the ingest thread bus is closed'));
    this.#pending.clear();
    return Promise.resolve();
  }
}
