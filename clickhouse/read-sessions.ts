import type { ChdbResult, Session } from 'chdb';
import { openEngineSession } from './engine-access.ts';
import { inlineParams } from './inline-params.ts';
import { storeMetrics } from './metrics.ts';
import type { QueryParams } from './params.ts';

/**
 * The embedded store's read sessions: chDB sessions on the store's data directory, each with the store's base
 * settings and database, that run the store's reads. A chDB session runs one query at a time, and the store's own
 * session also runs every insert and command: on one session, each API read would wait behind every other read and
 * behind the processors' inserts. Sessions of one directory run their queries in parallel (measured: two
 * `SELECT sleep(0.5)` at once took 1,025 ms on one session, 508 ms on two).
 *
 * chDB runs parameterised queries one at a time across the whole process (its binder's state is shared by the
 * connections): a read's parameters are therefore written into its text as typed literals (inline-params.ts), and only
 * a value that is not inlined goes through the engine's binder.
 *
 * A read takes a free session, or waits in arrival order for one.
 */
export interface ReadSessions {
  /** The raw result of `sql` (its FORMAT clause, else `format`) on a free session. */
  run(sql: string, params: QueryParams, format: string): Promise<ChdbResult>;
  close(): void;
}

/** Raised for a read after close(): the store is closed (isStoreUnavailable recognises the words). */
export class ReadSessionsClosedError extends Error {
  constructor() {
    super('read session: connection is closed');
    this.name = 'ReadSessionsClosedError';
  }
}

/** `count` read sessions on `dataPath`, each set up by `setup` (statements run once, in order). */
export async function openReadSessions(dataPath: string, database: string, count: number, setup: readonly string[]): Promise<ReadSessions> {
  const sessions: Session[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const session = openEngineSession(dataPath, database);
      sessions.push(session);
      for (const statement of setup) await session.queryAsync(statement);
    }
  } catch (err) {
    for (const s of sessions) s.close();
    throw err;
  }
  const free = [...sessions];
  const waiters: ((s: Session | null) => void)[] = [];
  let closed = false;

  const take = (): Promise<Session | null> => {
    if (closed) return Promise.resolve(null);
    const s = free.pop();
    if (s !== undefined) return Promise.resolve(s);
    storeMetrics.readsWaiting.inc();
    return new Promise((resolve) => waiters.push(resolve));
  };
  const wake = (next: (s: Session | null) => void, s: Session | null): void => {
    storeMetrics.readsWaiting.dec();
    next(s);
  };
  const give = (s: Session): void => {
    const next = waiters.shift();
    if (next !== undefined) wake(next, s);
    else free.push(s);
  };

  return {
    async run(sql, params, format) {
      const session = await take();
      if (session === null) throw new ReadSessionsClosedError();
      try {
        const inlined = Object.keys(params).length === 0 ? sql : inlineParams(sql, params);
        return await (inlined !== null ? session.queryAsync(inlined, { format }) : session.queryBindAsync(sql, params, { format }));
      } finally {
        give(session);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      for (const w of waiters.splice(0)) wake(w, null);
      // A session still running a read is closed by chDB when that read ends (Session.close defers the teardown).
      for (const s of sessions) s.close();
    },
  };
}
