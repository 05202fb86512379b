/**
 * Fail fast on a down or frozen store: a Store wrapper for the API's reads (query, queryColumns) with a read
 * deadline and a circuit breaker.
 * - Every read must answer within `readTimeoutMs`, else it fails as StoreUnavailableError (the statement is
 *   abandoned, not awaited; its late result or error is dropped).
 * - `failures` consecutive unavailable reads (deadline, refused or reset connection, closed embedded store) open
 *   the circuit: every read then fails at once, with the time until the next probe (`retryAfterMs`, the API's
 *   Retry-After), instead of waiting for a deadline again.
 * - While open, a health probe (store.ping within readTimeoutMs) runs every `probeMs`; the first success closes
 *   the circuit. A query error (bad SQL, unknown table) is the caller's and counts neither way.
 * Writes (insert, command) and ping pass through unchanged: their callers have their own retry policies.
 */
import { isStoreUnavailable, StoreUnavailableError } from './errors.ts';
import type { Store } from './store.ts';
import { withDeadline } from '#platform/deadline.ts';

export interface BreakerOptions {
  /** null: no read deadline (an in-process store cannot freeze apart from its caller; it fails fast when closed). */
  readonly readTimeoutMs: number | null;
  /** Consecutive unavailable reads that open the circuit. */
  readonly failures: number;
  readonly probeMs: number;
  /** Called on every transition (metrics, logs). */
  readonly onChange?: (state: 'open' | 'closed', cause: string) => void;
}

/** Thrown while the circuit is open: the store is known to be unavailable. */
export class CircuitOpenError extends StoreUnavailableError {
  constructor(readonly retryAfterMs: number) {
    super('store circuit open: the store did not answer recent reads', 'query');
  }
}

export interface BreakerStore extends Store {
  /** 'open' while reads fail fast. */
  state(): 'open' | 'closed';
  /** Stops the health probe and closes the circuit (app shutdown); the wrapped store stays open (its owner closes it). */
  stopProbe(): void;
}

export function withBreaker(inner: Store, o: BreakerOptions): BreakerStore {
  let consecutive = 0;
  let nextProbeAt = 0;
  /** The health probe's timer: set exactly while the circuit is open. */
  let probe: ReturnType<typeof setInterval> | null = null;

  const stopProbe = (): void => {
    if (probe !== null) clearInterval(probe);
    probe = null;
  };
  const runProbe = async (): Promise<void> => {
    nextProbeAt = Date.now() + o.probeMs;
    const ok = await deadline(inner.ping(), o.readTimeoutMs ?? o.probeMs).catch(() => false);
    if (!ok || probe === null) return;
    stopProbe();
    consecutive = 0;
    o.onChange?.('closed', 'probe answered');
  };
  const trip = (cause: string): void => {
    if (probe !== null) return;
    nextProbeAt = Date.now() + o.probeMs;
    probe = setInterval(() => void runProbe(), o.probeMs);
    probe.unref();
    o.onChange?.('open', cause);
  };

  async function read<T>(run: () => Promise<T>): Promise<T> {
    if (probe !== null) throw new CircuitOpenError(Math.max(0, nextProbeAt - Date.now()));
    try {
      const value = await deadline(run(), o.readTimeoutMs);
      consecutive = 0;
      return value;
    } catch (err) {
      if (isStoreUnavailable(err) && ++consecutive >= o.failures) trip((err as Error).message);
      throw err;
    }
  }

  return {
    kind: inner.kind,
    query: (sql, params) => read(() => inner.query(sql, params)),
    queryColumns: (sql, params, options) => read(() => inner.queryColumns(sql, params, options)),
    releaseColumns: (result) => inner.releaseColumns(result),
    queryBytes: (sql, params) => read(() => inner.queryBytes(sql, params)),
    command: (sql, params) => inner.command(sql, params),
    insert: (table, rows, opts) => inner.insert(table, rows, opts),
    ping: () => inner.ping(),
    async close() {
      stopProbe();
      await inner.close();
    },
    state: () => (probe !== null ? 'open' : 'closed'),
    stopProbe,
  };
}

/** The promise's value, or StoreUnavailableError after `ms` (null: no deadline). */
function deadline<T>(p: Promise<T>, ms: number | null): Promise<T> {
  if (ms === null) return p;
  return withDeadline(p, ms, () => new StoreUnavailableError(`store read did not answer within ${ms} ms`, 'query'));
}
