/**
 * Where a stored option trade's time goes between the connector and the store, hop by hop (the latency part of
 * bench/ingest-e2e.ts). The bus and the store the raw writer uses are wrapped here; nothing in the product changes.
 *   receive -> bus      the connector read the frame .. the bus took the message (parse, encode, the publisher's
 *                       linger, the hop from the ingest thread)
 *   bus -> handler      the bus took it .. the raw writer's handler got it (a partition's next batch waits until its
 *                       previous batch is stored: the handler returns only then, and the bus commits after it)
 *   INSERT              the INSERT that stored the row, from its start to its end
 * What receive -> stored holds besides: the wait in the raw writer's sink for its write to start (the spacing of the
 * writes, a free write slot) and the decode. Each hop is weighted by message (or row), as receive -> stored is.
 * The bus -> handler hop needs the consumed message to be the published one (the in-process bus); on Kafka it is
 * not measured.
 */
import type { Bus, ConsumedBatch, SubscribeOptions } from '#bus/types.ts';
import type { Store } from '#clickhouse/store.ts';
import { RAW_TABLES } from '#clickhouse/rows.ts';
import { TOPICS } from '#schemas/events.ts';
import { quantile } from './http-bench.ts';

export class HopTimes {
  readonly receiveToBus: number[] = [];
  readonly busToHandler: number[] = [];
  readonly insert: number[] = [];
  /** Messages received before this are not counted (a shared Kafka topic may hold earlier runs). */
  private since = Date.now();
  private readonly published = new WeakMap<object, number>();
  private readonly insertStarts = new WeakMap<object, number>();

  reset(): void {
    this.receiveToBus.length = 0;
    this.busToHandler.length = 0;
    this.insert.length = 0;
    this.since = Date.now();
  }

  /** `bus`, with the instant each option-trade message is published and handed to a handler recorded. */
  bus(bus: Bus): Bus {
    const publish: Bus['publish'] = async (topic, messages) => {
      if (topic === TOPICS.option_trade) {
        const now = Date.now();
        for (const m of messages) {
          if (m.timestamp === undefined || m.timestamp < this.since) continue;
          this.published.set(m.value, now);
          this.receiveToBus.push(now - m.timestamp);
        }
      }
      await bus.publish(topic, messages);
    };
    const subscribe: Bus['subscribe'] = (options: SubscribeOptions) =>
      bus.subscribe({
        ...options,
        eachBatch: async (batch: ConsumedBatch) => {
          if (batch.topic === TOPICS.option_trade) {
            const now = Date.now();
            for (const m of batch.messages) {
              const at = this.published.get(m.value);
              if (at !== undefined) this.busToHandler.push(now - at);
            }
          }
          await options.eachBatch(batch);
        },
      });
    return wrap(bus, { publish, subscribe });
  }

  /** `store`, with the start of each option-trade INSERT recorded (by its rows array, which `onStored` gets too). */
  store(store: Store): Store {
    const insert: Store['insert'] = async (table, rows, opts) => {
      if (table === RAW_TABLES.option_trade) this.insertStarts.set(rows, Date.now());
      await store.insert(table, rows, opts);
    };
    return wrap(store, { insert });
  }

  /** The raw writer stored `counted` rows of `rows` (the probe's count) at `storedAt`. */
  stored(rows: readonly object[], counted: number, storedAt: number): void {
    const start = this.insertStarts.get(rows);
    if (start === undefined) return;
    for (let i = 0; i < counted; i++) this.insert.push(storedAt - start);
  }

  /** p50 / p99 of each hop, for the bench's line. */
  summary(): string {
    const hop = (name: string, xs: readonly number[]): string =>
      xs.length === 0 ? `${name} -` : `${name} ${quantile(xs, 0.5).toFixed(0)} / ${quantile(xs, 0.99).toFixed(0)}`;
    return `hops p50 / p99 ms: ${hop('receive -> bus', this.receiveToBus)}, ${hop('bus -> handler', this.busToHandler)}, ${hop('INSERT', this.insert)}`;
  }
}

/** `target` with `overrides` in place of its own members; every other member is the target's, bound to it. */
function wrap<T extends object>(target: T, overrides: Partial<T>): T {
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (Object.prototype.hasOwnProperty.call(overrides, prop)) return (overrides as Record<PropertyKey, unknown>)[prop];
      const v: unknown = Reflect.get(t, prop, receiver);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
}
