/**
 * The k-way merge of a replay: every channel's stored history, each already in its own order, merged into one
 * stream in time order. Tie rule (deterministic): by instant (ms), then by channel name (UTF-16 code-unit order,
 * as `<` compares strings), then in the channel's own order. A source hands its items in chunks (a store page's
 * worth); the merge hands out runs: consecutive items of one channel (a chunk as it is when one channel is left, so a
 * single-channel replay costs nothing per item). Pull-based: one chunk per channel is held, the next chunk of a
 * channel is pulled only once its previous one has been handed out whole. Pure: no I/O of its own.
 */

/** One item of a channel's history: the instant it represents (ms UTC) and what to send for it. */
export interface ReplayItem<T> {
  readonly atMs: number;
  readonly value: T;
}

/** A channel's history in its own order (non-decreasing `atMs`), in chunks. */
export interface ReplaySource<T> {
  readonly channel: string;
  readonly chunks: AsyncIterable<readonly ReplayItem<T>[]>;
}

/** Consecutive items of one channel in the merged order. */
export interface MergedRun<T> {
  readonly channel: string;
  readonly items: readonly ReplayItem<T>[];
}

interface Head<T> {
  readonly channel: string;
  readonly iterator: AsyncIterator<readonly ReplayItem<T>[]>;
  chunk: readonly ReplayItem<T>[];
  /** Index of the head's next item in `chunk`. */
  pos: number;
}

/** Whether item `a` of channel `ca` goes before item `b` of channel `cb` under the tie rule. */
const before = <T>(a: ReplayItem<T>, ca: string, b: ReplayItem<T>, cb: string): boolean =>
  a.atMs < b.atMs || (a.atMs === b.atMs && ca < cb);

const itemOf = <T>(h: Head<T>): ReplayItem<T> => h.chunk[h.pos] as ReplayItem<T>;

/** The next non-empty chunk of a source, checked in order from `lastMs` on; null at its end. */
async function nextChunk<T>(
  channel: string,
  iterator: AsyncIterator<readonly ReplayItem<T>[]>,
  lastMs: number,
): Promise<readonly ReplayItem<T>[] | null> {
  for (;;) {
    const r = await iterator.next();
    if (r.done === true) return null;
    const chunk = r.value;
    if (chunk.length === 0) continue;
    let prev = lastMs;
    for (const item of chunk) {
      if (item.atMs < prev) throw new Error(`replay merge: channel ${channel} went back in time`);
      prev = item.atMs;
    }
    return chunk;
  }
}

/**
 * The sources merged in time order (tie rule above), as runs. Channel names must be distinct. A source whose items
 * go back in time is an error (the merge would not be in time order). Returning early closes every source.
 */
export async function* mergeReplay<T>(sources: readonly ReplaySource<T>[]): AsyncGenerator<MergedRun<T>> {
  if (new Set(sources.map((s) => s.channel)).size !== sources.length) throw new Error('replay merge: duplicate channel names');
  const heads: Head<T>[] = [];
  const iterators = sources.map((s) => s.chunks[Symbol.asyncIterator]());
  try {
    for (const [i, s] of sources.entries()) {
      const iterator = iterators[i] as AsyncIterator<readonly ReplayItem<T>[]>;
      const chunk = await nextChunk(s.channel, iterator, -Infinity);
      if (chunk !== null) heads.push({ channel: s.channel, iterator, chunk, pos: 0 });
    }
    while (heads.length > 0) {
      // k is small (a handful of channels): a linear scan for the smallest head and the next smallest.
      let best = 0;
      for (let i = 1; i < heads.length; i++) {
        const h = heads[i] as Head<T>;
        const b = heads[best] as Head<T>;
        if (before(itemOf(h), h.channel, itemOf(b), b.channel)) best = i;
      }
      const h = heads[best] as Head<T>;
      let end = h.chunk.length;
      for (let i = 0; i < heads.length; i++) {
        if (i === best) continue;
        const o = heads[i] as Head<T>;
        const limit = itemOf(o);
        // The run ends before the first item of h that goes after o's head.
        let e = h.pos + 1;
        while (e < end && before(h.chunk[e] as ReplayItem<T>, h.channel, limit, o.channel)) e++;
        end = e;
      }
      yield { channel: h.channel, items: h.pos === 0 && end === h.chunk.length ? h.chunk : h.chunk.slice(h.pos, end) };
      if (end < h.chunk.length) {
        h.pos = end;
        continue;
      }
      const last = h.chunk[h.chunk.length - 1] as ReplayItem<T>;
      const chunk = await nextChunk(h.channel, h.iterator, last.atMs);
      if (chunk === null) heads.splice(best, 1);
      else {
        h.chunk = chunk;
        h.pos = 0;
      }
    }
  } finally {
    await Promise.all(iterators.map((it) => it.return?.()));
  }
}
