/**
 * The `chain.{symbol}[.{venues}]` channel: the consolidated options chain (the rows of /v2/options/chain without
 * `dte`, which the client derives from `expiry` and `computed_at`). A new subscriber gets a `snapshot` message (every
 * contract) carrying the channel's current seq; each new chain tick (the snapshot topic says one is stored) sends
 * one `changes` message (seq + 1): the contracts whose row changed or appeared (`upserts`) and the keys of those
 * that left (`removals`). At most one `changes` per channel per second: a tick arriving sooner is sent when the
 * second is over, diffed against what the channel last sent. One consolidation and one serialization per channel
 * and tick, whatever the number of subscribers.
 */
import { consolidateChain, contractKey } from '#processors/analytics/chain-quotes.ts';
import { childLogger } from '#platform/log.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { chainInstantAtOrBefore, servedChainRowsAt } from '../options/chain-reads.ts';
import type { ChainInstant } from '../options/chain-reads.ts';
import { contractJson } from '../options/chain-render.ts';
import type { Store } from '#clickhouse/store.ts';
import type { OptionChainRow } from '#processors/snapshots/option-chain.ts';
import type { FeedHub, Subscriber } from './hub.ts';
import type { Channel } from './protocol.ts';
import { wsMetrics } from './metrics.ts';

const log = childLogger('ws-chain');
export const CHAIN_MIN_INTERVAL_MS = 1_000;

interface ChainView {
  readonly t: number;
  readonly spot: number;
  /** contract key → row JSON. */
  readonly rows: ReadonlyMap<string, string>;
}

interface ChannelChain {
  readonly channel: Channel;
  sent: ChainView | null;
  lastSentAt: number;
  /** The newest chain not yet sent (throttled), and its timer. */
  pending: ChainView | null;
  timer: NodeJS.Timeout | null;
}

/** Contract rows of a chain for a channel's venue filter, keyed, serialized once. */
export function chainViewOf(channel: Channel, t: number, rows: readonly OptionChainRow[]): ChainView {
  const venues = channel.venues === undefined ? null : new Set<string>(channel.venues);
  const selected = venues === null ? rows : rows.filter((r) => venues.has(r.venue));
  const spot = rows[0]?.spot ?? 0;
  const out = new Map<string, string>();
  for (const c of consolidateChain(selected)) {
    const { dte: _dte, ...row } = contractJson(c, t, spot, false);
    out.set(contractKey({ expiry: c.expiry, strike: c.strike, option_type: c.type }), JSON.stringify(row));
  }
  return { t, spot, rows: out };
}

const head = (channel: Channel, v: ChainView, type: 'snapshot' | 'changes'): string =>
  `{"type":"${type}","symbol":"${channel.symbol}","computed_at":"${new Date(v.t).toISOString()}","spot":${JSON.stringify(v.spot)}${channel.venues !== undefined ? `,"exchanges_filtered":${JSON.stringify(channel.venues)}` : ''}`;

export function snapshotJson(channel: Channel, v: ChainView): string {
  return `${head(channel, v, 'snapshot')},"rows":[${[...v.rows.values()].join(',')}]}`;
}

/** The changes from `prev` to `next`: upserted rows (new or different JSON) and removed contract keys. */
export function changesJson(channel: Channel, prev: ChainView | null, next: ChainView): string {
  const upserts: string[] = [];
  for (const [k, row] of next.rows) if (prev?.rows.get(k) !== row) upserts.push(row);
  const removals: string[] = [];
  if (prev !== null) {
    for (const k of prev.rows.keys()) {
      if (next.rows.has(k)) continue;
      const [expiry, strike, type] = k.split('|');
      removals.push(`{"expiry":"${new Date(Number(expiry)).toISOString()}","strike":${Number(strike)},"type":"${type ?? ''}"}`);
    }
  }
  return `${head(channel, next, 'changes')},"upserts":[${upserts.join(',')}],"removals":[${removals.join(',')}]}`;
}

export class ChainFeed {
  private readonly channels = new Map<string, ChannelChain>();
  /** Rows per (symbol, instant) read once per tick for every channel of the symbol. */
  private readonly rowsMemo = new Map<string, Promise<readonly OptionChainRow[]>>();

  constructor(
    private readonly hub: FeedHub,
    private readonly store: Store,
    private readonly clock: () => number = Date.now,
  ) {
    hub.onSubscribe('chain', (channel, s) => {
      this.sendSnapshot(channel, s).catch((err: unknown) => {
        wsMetrics.skipped.inc({ stream: 'chain' });
        log.warn({ err, channel: channel.name }, 'chain snapshot not sent');
      });
    });
  }

  private rowsAt(symbol: MarketSymbol, at: ChainInstant): Promise<readonly OptionChainRow[]> {
    const key = `${symbol}|${at.table}|${at.t}`;
    let p = this.rowsMemo.get(key);
    if (p === undefined) {
      p = servedChainRowsAt(this.store, symbol, at);
      p.catch(() => this.rowsMemo.delete(key));
      this.rowsMemo.set(key, p);
      if (this.rowsMemo.size > 8) this.rowsMemo.delete(this.rowsMemo.keys().next().value as string);
    }
    return p;
  }

  private stateOf(channel: Channel): ChannelChain {
    let st = this.channels.get(channel.name);
    if (st === undefined) {
      st = { channel, sent: null, lastSentAt: 0, pending: null, timer: null };
      this.channels.set(channel.name, st);
    }
    return st;
  }

  /** A new subscriber: the channel's current chain (loaded from the store the first time) with the current seq. */
  async sendSnapshot(channel: Channel, s: Subscriber): Promise<void> {
    const st = this.stateOf(channel);
    if (st.sent === null) {
      const at = await chainInstantAtOrBefore(this.store, channel.symbol, this.clock());
      if (at === null) return; // nothing stored yet: the first tick's `changes` carries every contract
      const view = chainViewOf(channel, at.t, await this.rowsAt(channel.symbol, at));
      if (st.sent === null) st.sent = view;
    }
    this.hub.sendTo(channel.name, s, snapshotJson(channel, st.sent));
  }

  /** A chain tick stored for `symbol` at `t` (the analytics snapshot of that tick was published). */
  async onTick(symbol: MarketSymbol, t: number, receivedAt: number): Promise<void> {
    const channels = this.hub.active('chain', symbol);
    for (const name of [...this.channels.keys()]) if (!this.hub.hasSubscribers(name)) this.drop(name);
    if (channels.length === 0) return;
    const rows = await this.rowsAt(symbol, { t, table: 'option_chain_snapshots' });
    if (rows.length === 0) return;
    for (const c of channels) {
      const st = this.stateOf(c);
      if (st.sent !== null && st.sent.t >= t) continue;
      st.pending = chainViewOf(c, t, rows);
      this.flush(st, receivedAt);
    }
  }

  private flush(st: ChannelChain, receivedAt: number): void {
    if (st.pending === null || st.timer !== null) return;
    const wait = st.lastSentAt + CHAIN_MIN_INTERVAL_MS - this.clock();
    if (wait > 0) {
      st.timer = setTimeout(() => {
        st.timer = null;
        this.flush(st, performance.now());
      }, wait);
      st.timer.unref();
      return;
    }
    const next = st.pending;
    st.pending = null;
    this.hub.publish(st.channel.name, changesJson(st.channel, st.sent, next), receivedAt);
    st.sent = next;
    st.lastSentAt = this.clock();
  }

  private drop(name: string): void {
    const st = this.channels.get(name);
    if (st?.timer) clearTimeout(st.timer);
    this.channels.delete(name);
  }

  close(): void {
    for (const name of [...this.channels.keys()]) this.drop(name);
  }
}
