import { Counter } from 'prom-client';
import { TOPICS } from '#schemas/events.ts';
import { RAW_TABLES, type RawRow, type RawTable } from '#clickhouse/rows.ts';
import type { Store } from '#clickhouse/store.ts';
import type { Bus, BusConsumer, ConsumedBatch } from '#bus/types.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { childLogger } from '#platform/log.ts';
import { ok, runStep, type PipelineStep } from '#platform/steps/step-runner.ts';
import type { RetryPolicy } from '#platform/steps/retry-policy.ts';
import { decodeStep } from './decode-step.ts';
import { CoalescingSink, type BatchRows } from './coalescing-sink.ts';
import { RowBudget } from './row-budget.ts';

/** Every topic whose events have a raw table. */
export const RAW_TOPICS: readonly string[] = [
  TOPICS.instrument,
  TOPICS.option_trade,
  TOPICS.option_ticker,
  TOPICS.perp_trade,
  TOPICS.spot_trade,
  TOPICS.perp_stats,
  TOPICS.liquidation,
  TOPICS.index,
  TOPICS.dead_letter,
];

const rowsWritten = new Counter({
  name: METRIC.rawWriterRows,
  help: 'Rows written to raw tables by the raw writer',
  labelNames: ['table'] as const,
  registers: [metricsRegistry],
});
const undecodable = new Counter({
  name: METRIC.rawWriterUndecodable,
  help: 'Bus messages that could not be decoded (stored in dead_letters)',
  labelNames: ['topic'] as const,
  registers: [metricsRegistry],
});

const log = childLogger('raw-writer');
/** A store outage retries the insert after the shared jittered backoff: up to 200 ms first, at most 10 s. */
const INSERT_RETRY: RetryPolicy = { baseMs: 200, maxMs: 10_000 };

/**
 * Turns one consumed batch into rows and stores them. The dedup token names the exact offsets, so a batch
 * redelivered with the same boundaries is dropped by ClickHouse's insert deduplication; any other redelivery
 * is collapsed by the ReplacingMergeTree on the stable event id. The returned promise resolves only after the
 * rows are in ClickHouse: the bus commits the offsets only then.
 */
/** Observer of rows once ClickHouse accepted them (`storedAt` = local time after the INSERT returned). */
export type StoredHook = (table: RawTable, rows: readonly RawRow[], storedAt: number) => void;

/** Decodes a consumed batch into rows per raw table, with its idempotency token (the exact offsets). */
export function decodeBatch(groupId: string, batch: ConsumedBatch): BatchRows {
  const byTable = new Map<RawTable, RawRow[]>();
  for (const m of batch.messages) {
    const r = decodeStep(m);
    const table = r.kind === 'row' ? r.table : RAW_TABLES.dead_letter;
    if (r.kind === 'dead_letter') {
      undecodable.inc({ topic: m.topic });
      log.warn({ topic: m.topic, partition: m.partition, offset: m.offset, reason: r.reason }, 'undecodable message stored as dead letter');
    }
    let rows = byTable.get(table);
    if (!rows) byTable.set(table, (rows = []));
    rows.push(r.row);
  }
  const first = batch.messages[0]?.offset;
  const last = batch.messages[batch.messages.length - 1]?.offset;
  return { byTable, token: `${groupId}:${batch.topic}:${batch.partition}:${first}-${last}` };
}

function countStored(onStored?: StoredHook): StoredHook {
  return (table, rows, storedAt) => {
    rowsWritten.inc({ table }, rows.length);
    onStored?.(table, rows, storedAt);
  };
}

/** Stores one batch on its own (one INSERT per table, token = the batch's offsets). */
export async function writeRawBatch(store: Store, groupId: string, batch: ConsumedBatch, onStored?: StoredHook): Promise<void> {
  const { byTable, token } = decodeBatch(groupId, batch);
  const stored = countStored(onStored);
  for (const [table, rows] of byTable) {
    await store.insert(table, rows, { dedupToken: `${token}:${table}` });
    stored(table, rows, Date.now());
  }
}

export interface RawWriterOptions {
  readonly groupId?: string;
  readonly maxBatchSize?: number;
  /** Consumer-group members in this process; their batches are merged into shared INSERTs. Default 3. */
  readonly members?: number;
  /**
   * Partitions of one member whose batches may gather for a write at once. Default 16: every partition with data
   * joins the next write, instead of one partition per member and write (a partition then waited a write cycle
   * per other partition of its member: p99 receive -> stored 1.1 s at 10k trades/s, 0.26 s with 16).
   */
  readonly partitionsConcurrently?: number;
  /** Rows that trigger an INSERT at once; otherwise after `lingerMs`. Defaults 20 000 and 25 ms. */
  readonly maxInsertRows?: number;
  readonly lingerMs?: number;
  /**
   * Least time between the starts of two writes, unless `maxInsertRows` are waiting. Default 75 ms: an INSERT costs
   * tens of milliseconds of CPU on the embedded engine plus the merges of the parts it makes, so at 1k trades/s
   * (a write per batch: ~20/s) the pipeline used 1.2 cores, 0.7 with writes 75 ms apart (bench/RESULTS.md "ingest").
   */
  readonly minIntervalMs?: number;
  /**
   * Writes in flight at once. Default 2: the embedded engine runs two INSERTs at once, so the next write does not wait
   * for a slow one (same-minute runs on Node 20: publish -> store 94k -> 123k events/s, connectors -> store 82k -> 86k,
   * steady 10k trades/s p99 receive -> stored 224 -> 176 ms; on Node 26 within the noise; bench/RESULTS.md "ingest").
   */
  readonly writesInFlight?: number;
  /**
   * Where a new group starts (default true: everything the bus retains; a first deployment stores the history).
   * Benchmarks sharing a long-lived broker pass false so earlier runs' events are not re-consumed.
   */
  readonly fromBeginning?: boolean;
  readonly onStored?: StoredHook;
}

/**
 * The raw-writer role: `members` consumer-group members that store every market-data event in its raw table.
 * Their batches go through one CoalescingSink, so partitions consumed in parallel share INSERTs.
 */
export async function startRawWriter(bus: Bus, store: Store, opts: RawWriterOptions = {}): Promise<BusConsumer> {
  const groupId = opts.groupId ?? 'raw-writer';
  const n = Math.max(1, opts.members ?? 3);
  const concurrently = Math.max(1, opts.partitionsConcurrently ?? 16);
  const maxRows = opts.maxInsertRows ?? 20_000;
  const writes = Math.max(1, opts.writesInFlight ?? 2);
  const sink = new CoalescingSink(store, {
    writers: n * concurrently,
    maxRows,
    lingerMs: opts.lingerMs ?? 25,
    minIntervalMs: opts.minIntervalMs ?? 75,
    maxWrites: writes,
    onStored: countStored(opts.onStored),
  });
  // Decoded rows held at once (being written, and gathering for the next write).
  const budget = new RowBudget((writes + 1) * maxRows);
  const stopping = new AbortController();
  // A store outage holds the batch here, retried with backoff (nothing committed, nothing lost) instead of
  // spinning through redeliveries; on shutdown the retry is cut short and the failure returned, so the batch
  // stays uncommitted.
  const insertStep: PipelineStep<{ batch: ConsumedBatch; rows: BatchRows }, void> = {
    name: 'raw-writer.insert',
    log,
    retry: INSERT_RETRY,
    context: ({ batch }) => ({ topic: batch.topic, partition: batch.partition }),
    run: async ({ rows }) => ok(await sink.submit(rows)),
  };
  const members: BusConsumer[] = [];
  for (let i = 0; i < n; i++) {
    members.push(
      await bus.subscribe({
        groupId,
        topics: RAW_TOPICS,
        fromBeginning: opts.fromBeginning ?? true,
        maxBatchSize: opts.maxBatchSize ?? 10_000,
        partitionsConcurrently: concurrently,
        eachBatch: async (batch) => {
          const count = batch.messages.length;
          await budget.acquire(count);
          try {
            await runStep(insertStep, { batch, rows: decodeBatch(groupId, batch) }, stopping.signal);
          } finally {
            budget.release(count);
          }
        },
      }),
    );
  }
  return {
    groupId,
    pause: () => members.forEach((m) => m.pause()),
    resume: () => members.forEach((m) => m.resume()),
    isPaused: () => members.every((m) => m.isPaused()),
    assignments: () => members.flatMap((m) => m.assignments()),
    stop: async () => {
      stopping.abort();
      await Promise.all(members.map((m) => m.stop()));
    },
  };
}
