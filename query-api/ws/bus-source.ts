/**
 * Feeds the hub from the bus: this API process's own consumer groups (a unique id per process, starting at
 * the end of the log) on the option-trade topic (→ `tape.{symbol}`) and the analytics snapshot topic
 * (→ `levels.{symbol}[.venues]`, and `chain.{symbol}[.venues]` through chain-feed.ts). Trades go through the
 * backlog (trade-backlog.ts: batched fan-out, age bound), each mapped and serialized once per event; a snapshot is loaded into
 * the snapshot cache once per process (one ClickHouse read of its rows, shared with the REST routes) and
 * rendered once per active venue filter. Nothing is read per client.
 */
import type { Bus, BusConsumer, ConsumedMessage } from '#bus/types.ts';
import { childLogger } from '#platform/log.ts';
import { avroCodec } from '#schemas/avro/codec.ts';
import { decodeMarketEvent } from '#schemas/event-codec.ts';
import { SYMBOLS, TOPICS } from '#schemas/events.ts';
import type { AnalyticsSnapshot, MarketSymbol } from '#schemas/events.ts';
import { STORED_INCLUDES } from '#processors/analytics/levels.ts';
import { SNAPSHOT_KIND } from '#processors/snapshots/write-step.ts';
import { levelsOfSnapshot } from '../gex/as-of.ts';
import type { StoredSnapshot } from '../gex/as-of.ts';
import type { SnapshotCache } from '../gex/snapshot-cache.ts';
import { positioningMeta } from '../gex/positioning.ts';
import { levelsPayload } from '../gex/render.ts';
import type { ChainFeed } from './chain-feed.ts';
import { TRADE_MAX_AGE_MS, TradeBacklog } from './trade-backlog.ts';
import type { FeedHub } from './hub.ts';
import { wsMetrics } from './metrics.ts';
import type { Channel } from './protocol.ts';

const log = childLogger('ws-feed');

/**
 * Notification data of a levels channel: `levels` is the `data` of /v2/gex/levels under `flow` (std fallback)
 * with the compact optional blocks (ranked, max_pain, expected_move, zones, spot; not candles, profile, by_strike).
 */
export function levelsNotification(s: StoredSnapshot, channel: Channel): string {
  const { levels } = levelsOfSnapshot(s, 'flow', channel.venues, STORED_INCLUDES);
  const { payload, source } = levelsPayload(levels);
  return JSON.stringify({
    symbol: s.meta.symbol,
    computed_at: new Date(s.meta.computed_at).toISOString(),
    spot_price: s.meta.spot,
    source,
    ...(channel.venues !== undefined ? { exchanges_filtered: channel.venues } : {}),
    positioning: positioningMeta('flow', levels.positioning, s.meta.symbol),
    levels: payload,
  });
}

/** Queues a bus trade for the fan-out of its tape channel (when that channel has subscribers). */
export function queueTrade(hub: FeedHub, backlog: TradeBacklog, m: ConsumedMessage, receivedAt: number): void {
  const e = decodeMarketEvent(TOPICS.option_trade, m.value);
  if (e.type !== 'option_trade') return;
  const name = `tape.${e.event.symbol}`;
  if (hub.hasSubscribers(name)) backlog.push(name, e.event, receivedAt);
}

export async function publishSnapshot(
  hub: FeedHub,
  cache: SnapshotCache,
  m: ConsumedMessage,
  receivedAt: number,
  chains?: ChainFeed,
): Promise<void> {
  const a = avroCodec().decodeAs<AnalyticsSnapshot>('snapshot', m.value);
  if (a.kind !== SNAPSHOT_KIND || !(SYMBOLS as readonly string[]).includes(a.symbol)) return;
  // The tick's consolidated chain is stored before its snapshot is published (processors/snapshots/cycle.ts).
  if (chains !== undefined) await chains.onTick(a.symbol as MarketSymbol, a.computedAt, receivedAt);
  const channels = hub.active('levels', a.symbol as MarketSymbol);
  await cache.load(a.symbol, a.computedAt);
  const s = cache.get(a.symbol);
  if (s === null || s.meta.computed_at !== a.computedAt) return;
  for (const c of channels) hub.publish(c.name, levelsNotification(s, c), receivedAt);
}

export interface BusSource {
  /** Trades received and not yet fanned out (ws/trade-backlog.ts). */
  readonly backlog: TradeBacklog;
  stop(): Promise<void>;
}

export interface BusSourceOptions {
  readonly chains?: ChainFeed;
  /** Age bound of a trade waiting for its fan-out (ms); default TRADE_MAX_AGE_MS. */
  readonly maxTradeAgeMs?: number;
}

export async function startBusSource(bus: Bus, hub: FeedHub, cache: SnapshotCache, opts: BusSourceOptions = {}): Promise<BusSource> {
  const { chains } = opts;
  const backlog = new TradeBacklog(hub, opts.maxTradeAgeMs ?? TRADE_MAX_AGE_MS);
  const group = `ws-feed-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const guarded = async (what: string, m: ConsumedMessage, fn: () => void | Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (err) {
      wsMetrics.skipped.inc({ stream: what });
      log.warn({ err, offset: m.offset, what }, 'feed message skipped');
    }
  };
  const consume = (
    topic: string,
    what: string,
    handle: (m: ConsumedMessage, at: number) => void | Promise<void>,
    afterBatch?: () => void,
  ): Promise<BusConsumer> =>
    bus.subscribe({
      groupId: `${group}-${what}`,
      topics: [topic],
      fromBeginning: false,
      eachBatch: async (batch) => {
        const at = performance.now();
        for (const m of batch.messages) await guarded(what, m, () => handle(m, at));
        afterBatch?.();
      },
    });
  // Separate groups: a snapshot load (one ClickHouse read) never holds back the trades. Trades are queued here (the
  // batch is handed over at once); the backlog fans out its first chunk as the batch ends and the rest turn by turn.
  const consumers: BusConsumer[] = [
    await consume(
      TOPICS.option_trade,
      'tape',
      (m, at) => queueTrade(hub, backlog, m, at),
      () => backlog.flush(),
    ),
    await consume(TOPICS.snapshot, 'levels', (m, at) => publishSnapshot(hub, cache, m, at, chains)),
  ];
  return {
    backlog,
    async stop() {
      await Promise.all(consumers.map((c) => c.stop()));
      backlog.close();
    },
  };
}
