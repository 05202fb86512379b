/**
 * The k-way merge of a replay: every channel's stored history, each already in its own order, merged into one
 * stream in time order. Tie rule (deterministic): by instant (ms), then by channel name (UTF-16 code-unit order,
 * as `<` compares strings), then in the channel's own order. Pull-based: one pending item per channel is held,
 * the next item of a channel is pulled only once its previous one has been yielded. Pure: no I/O of its own.
 */

/** One item of a channel's history: the instant it represents (ms UTC) and what to send for it. */
export interface ReplayItem<T> {
  readonly atMs: number;
  readonly value: T;
}

/** A channel's history in its own order (non-decreasing `atMs`). */
export interface ReplaySource<T> {
  readonly channel: string;
  readonly items: AsyncIterable<ReplayItem<T>>;
}

/** A merged item with the channel it belongs to. */
export interface MergedItem<T> extends ReplayItem<T> {
  readonly channel: string;
}

interface Head<T> {
  readonly channel: string;
  readonly iterator: AsyncIterator<ReplayItem<T>>;
  item: ReplayItem<T>;
}

/** Whether `a` goes before `b` under the tie rule (the channel's own order is kept by pulling one item at a time). */
const before = <T>(a: Head<T>, b: Head<T>): boolean => a.item.atMs < b.item.atMs || (a.item.atMs === b.item.atMs && a.channel < b.channel);

async function next<T>(iterator: AsyncIterator<ReplayItem<T>>): Promise<ReplayItem<T> | null> {
  const r = await iterator.next();
  return r.done === true ? null : r.value;
}

/**
 * The sources merged in time order (tie rule above). Channel names must be distinct. A source whose items go
 * back in time is an error (the merge would not be in time order). Returning early closes every source.
 */
export async function* mergeReplay<T>(sources: readonly ReplaySource<T>[]): AsyncGenerator<MergedItem<T>> {
  if (new Set(sources.map((s) => s.channel)).size !== sources.length) throw new Error('replay merge: duplicate channel names');
  const heads: Head<T>[] = [];
  const iterators = sources.map((s) => s.items[Symbol.asyncIterator]());
  try {
    for (const [i, s] of sources.entries()) {
      const iterator = iterators[i] as AsyncIterator<ReplayItem<T>>;
      const item = await next(iterator);
      if (item !== null) heads.push({ channel: s.channel, iterator, item });
    }
    // k is small (a handful of channels): a linear scan for the smallest head.
    while (heads.length > 0) {
      let best = 0;
      for (let i = 1; i < heads.length; i++) if (before(heads[i] as Head<T>, heads[best] as Head<T>)) best = i;
      const h = heads[best] as Head<T>;
      yield { channel: h.channel, atMs: h.item.atMs, value: h.item.value };
      const item = await next(h.iterator);
      if (item === null) heads.splice(best, 1);
      else if (item.atMs < h.item.atMs) throw new Error(`replay merge: channel ${h.channel} went back in time`);
      else h.item = item;
    }
  } finally {
    await Promise.all(iterators.map((it) => it.return?.()));
  }
}
