/**
 * Store pages read one ahead: the next page is requested as soon as the previous one has arrived, so while a replay
 * serializes and sends a page the embedded engine (on its own threads) or the server already reads the next. At
 * most two pages are held: the one being consumed and the next. A read's failure surfaces where its page would have
 * been taken (never as an unhandled rejection while the previous page is consumed); closing the pages early waits
 * for the read in flight, as closing a plain page loop waits for its current read.
 */

import { setImmediate as nextTurn } from 'node:timers/promises';

type Settled<P> = { readonly ok: true; readonly page: P | null } | { readonly ok: false; readonly err: unknown };

const settled = <P>(p: Promise<P | null>): Promise<Settled<P>> =>
  p.then(
    (page): Settled<P> => ({ ok: true, page }),
    (err: unknown): Settled<P> => ({ ok: false, err }),
  );

/** The pages of `read` in order: `read(null)` gives the first, `read(previous)` the next; null ends them. */
export async function* readAhead<P>(read: (previous: P | null) => Promise<P | null>): AsyncGenerator<P> {
  const start = (previous: P | null): Promise<Settled<P>> => {
    try {
      return settled(read(previous));
    } catch (err) {
      return Promise.resolve({ ok: false, err });
    }
  };
  let next = start(null);
  try {
    for (;;) {
      const r = await next;
      if (!r.ok) throw r.err;
      if (r.page === null) return;
      next = start(r.page);
      // A read's first steps are promise hops (generators, the store client) before its statement reaches the store:
      // one event-loop turn lets them run, so the store reads the next page while this one is consumed (without it
      // the consumer's synchronous work on the page ran first and the read only started after it).
      await nextTurn();
      yield r.page;
    }
  } finally {
    // Closed early: the read in flight ends before the pages do (the store may be closed right after them).
    await next;
  }
}
