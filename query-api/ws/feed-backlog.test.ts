/**
 * The feed's batched fan-out and its bounds, with real ws clients against the real server: a bus batch fanned out
 * in publishMany calls (consecutive seqs, the bytes of the one-by-one encoding; the first chunk as the batch ends, the
 * rest turn by turn), trades that waited over the age bound
 * dropped, counted and seen as a seq jump, a reader that stops cut off with 4009 while another gets every trade.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { encodeMarketEvent } from '#schemas/event-codec.ts';
import type { OptionTrade } from '#schemas/events.ts';
import { buildApp } from '../app.ts';
import { apiConfig } from '../config.ts';
import { SnapshotCache } from '../gex/snapshot-cache.ts';
import { migratedStore, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { tapeRow } from '../tape/tape-row.ts';
import { FeedHub, type FrameRun, type Subscriber } from './hub.ts';
import { notification, parseChannel } from './protocol.ts';
import { FANOUT_CHUNK, TradeBacklog } from './trade-backlog.ts';
import { connectClient, type FeedMessage, type TestClient } from './testing/client.ts';
import { feedTrade } from './testing/trade.ts';

const BASE_TS = Date.UTC(2026, 2, 20, 12, 0, 0);
/** The tight feed's trade age bound: the test stalls past it; the bound itself leaves room for a busy machine's stalls. */
const TIGHT_AGE_MS = 600;
const trade = (n: number, symbol: 'BTCUSDT' | 'ETHUSDT' = 'BTCUSDT', pad = 0): OptionTrade =>
  feedTrade(BASE_TS + n, n, { symbol, pad, prefix: 'backlog' });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const tradeId = (m: FeedMessage): string | undefined => (m.params?.data as { trade_id?: string } | undefined)?.trade_id;

async function counter(name: string, labels: Record<string, string> = {}): Promise<number> {
  const m = await metricsRegistry.getSingleMetric(name)?.get();
  return m?.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
}
const dropped = (): Promise<number> => counter('gex_ws_feed_dropped_total', { stream: 'tape' });

/** A subscriber that keeps the frames it is given. */
class Recorder implements Subscriber {
  readonly frames: Buffer[] = [];
  deliver(frame: Buffer): boolean {
    this.frames.push(frame);
    return true;
  }
  deliverMany(run: FrameRun): number {
    this.frames.push(...run.frames);
    return run.frames.length;
  }
}

test('publishMany: consecutive seqs, each frame byte-identical to publish one by one, counted once per subscriber', () => {
  const channel = parseChannel('tape.BTCUSDT');
  assert.ok(channel !== null);
  const data = Array.from({ length: 5 }, (_, i) => JSON.stringify(tapeRow(trade(i))));
  const one = new FeedHub();
  const many = new FeedHub();
  const a = new Recorder();
  const b = new Recorder();
  const c = new Recorder();
  one.subscribe(channel, a);
  many.subscribe(channel, b);
  many.subscribe(channel, c);
  one.publish(channel.name, 'null', performance.now());
  many.publish(channel.name, 'null', performance.now());
  for (const d of data) assert.equal(one.publish(channel.name, d, performance.now()), 1);
  assert.equal(many.publishMany(channel.name, data, performance.now()), 10);
  assert.equal(many.seq(channel.name), 6);
  assert.equal(b.frames.length, 6);
  assert.deepEqual(
    b.frames.map((f) => f.toString('hex')),
    a.frames.map((f) => f.toString('hex')),
  );
  assert.deepEqual(
    c.frames.slice(1).map((f) => (JSON.parse(f.toString('utf8')) as { params: { seq: number } }).params.seq),
    [2, 3, 4, 5, 6],
  );
  many.markDropped(channel.name, 3);
  many.publishMany(channel.name, [data[0] ?? ''], performance.now());
  assert.equal((JSON.parse(c.frames.at(-1)?.toString('utf8') ?? '') as { params: { seq: number } }).params.seq, 10);
  many.markDropped('tape.ETHUSDT', 4);
  assert.equal(many.seq('tape.ETHUSDT'), 0, 'no subscriber, no seq');
});

test('TradeBacklog.flush: the first chunk at once, the rest at the next turn, in order; nothing once closed', async () => {
  const channel = parseChannel('tape.BTCUSDT');
  assert.ok(channel !== null);
  const hub = new FeedHub();
  const r = new Recorder();
  hub.subscribe(channel, r);
  const backlog = new TradeBacklog(hub);
  const total = FANOUT_CHUNK + 72;
  for (let i = 0; i < total; i++) backlog.push(channel.name, trade(i), performance.now());
  backlog.flush();
  assert.equal(r.frames.length, FANOUT_CHUNK, 'the first chunk in the flushing task');
  assert.equal(backlog.size, total - FANOUT_CHUNK);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(backlog.size, 0);
  const seqs = r.frames.map((f) => (JSON.parse(f.toString('utf8')) as { params: { seq: number } }).params.seq);
  assert.deepEqual(
    seqs,
    Array.from({ length: total }, (_, i) => i + 1),
  );
  backlog.flush();
  assert.equal(r.frames.length, total, 'an empty backlog sends nothing');
  backlog.push(channel.name, trade(total), performance.now());
  backlog.close();
  backlog.flush();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(r.frames.length, total, 'a closed backlog sends nothing');
});

describe('/v2/ws batched fan-out and its bounds: real ws clients against the real server', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let bus: MemoryBus;
  let tightBus: MemoryBus;
  let app: ApiInstance;
  let tight: ApiInstance;
  let key: string;
  const open: TestClient[] = [];
  const urlOf = (a: ApiInstance): string => `ws://127.0.0.1:${(a.server.address() as AddressInfo).port}/v2/ws`;
  const client = async (a: ApiInstance): Promise<TestClient> => {
    const c = await connectClient(urlOf(a), key);
    open.push(c);
    await c.next((m) => m.id === null);
    return c;
  };
  const publish = (on: MemoryBus, trades: readonly OptionTrade[]): Promise<void> => {
    const encoded = trades.map((tr) => encodeMarketEvent({ type: 'option_trade', event: tr }));
    return on.publish(
      encoded[0]?.topic ?? '',
      encoded.map((e) => e.message),
    );
  };
  const start = async (on: MemoryBus, feed: { maxTradeAgeMs?: number }): Promise<ApiInstance> => {
    await ensureProductTopics(on, 1);
    const a = await buildApp({
      store: t.store,
      config: apiConfig({}),
      logger: false,
      snapshots: new SnapshotCache(t.store, { pollMs: 0 }),
      feed: { bus: on, heartbeatMs: 60_000, maxBufferedBytes: 256 * 1024, ...feed },
    });
    await a.listen({ host: '127.0.0.1', port: 0 });
    await a.gex.accounts.refresh();
    return a;
  };

  before(async () => {
    t = await migratedStore();
    key = await userWithKey(t.store, { userId: 'batched', plan: 'bundle_monthly' });
    bus = new MemoryBus({ clientId: 'ws-batch-test' });
    tightBus = new MemoryBus({ clientId: 'ws-batch-tight' });
    app = await start(bus, {});
    tight = await start(tightBus, { maxTradeAgeMs: TIGHT_AGE_MS });
  });
  after(async () => {
    for (const c of open) c.ws.terminate();
    await app.close();
    await tight.close();
    await bus.close();
    await tightBus.close();
    await t.dispose();
  });

  test('a bus batch of 1,000 trades reaches the hub in publishMany runs; the client gets every frame in order, as publish encodes it', async () => {
    const feed = app.wsFeed;
    assert.ok(feed !== null);
    const runs: number[] = [];
    const publishMany = feed.hub.publishMany.bind(feed.hub);
    feed.hub.publishMany = (name, data, at) => {
      runs.push(data.length);
      return publishMany(name, data, at);
    };
    const c = await client(app);
    const raw: string[] = [];
    c.ws.on('message', (d: Buffer) => raw.push(d.toString('utf8')));
    await c.request(1, 'public/subscribe', { channels: ['tape.ETHUSDT'] });
    const base = feed.hub.seq('tape.ETHUSDT');
    const trades = Array.from({ length: 1000 }, (_, i) => trade(i, 'ETHUSDT'));
    const droppedBefore = await dropped();
    await publish(bus, trades);
    await c.next((m) => tradeId(m) === '999');
    feed.hub.publishMany = publishMany;
    assert.deepEqual(
      runs,
      Array.from({ length: 1000 / FANOUT_CHUNK }, () => FANOUT_CHUNK).concat(1000 % FANOUT_CHUNK === 0 ? [] : [1000 % FANOUT_CHUNK]),
      'FANOUT_CHUNK trades per turn, one run each',
    );
    const frames = raw.filter((r) => r.includes('"method":"subscription"'));
    assert.equal(frames.length, 1000);
    assert.deepEqual(
      frames,
      trades.map((tr, i) => notification('tape.ETHUSDT', base + 1 + i, JSON.stringify(tapeRow(tr)))),
    );
    assert.equal(await dropped(), droppedBefore);
    c.ws.close();
  });

  test('trades that waited over the age bound are not sent: counted, and the next notification carries the seq jump', async () => {
    const feed = tight.wsFeed;
    assert.ok(feed !== null);
    const c = await client(tight);
    await c.request(1, 'public/subscribe', { channels: ['tape.BTCUSDT'] });
    const base = feed.hub.seq('tape.BTCUSDT');
    // The first fan-out turn is held past the bound (a stalled event loop): the rest of the batch is then too old.
    const publishMany = feed.hub.publishMany.bind(feed.hub);
    feed.hub.publishMany = (name, data, at) => {
      const stall = performance.now() + 2 * TIGHT_AGE_MS;
      while (performance.now() < stall) {
        // busy: nothing else runs
      }
      feed.hub.publishMany = publishMany;
      return publishMany(name, data, at);
    };
    const before = await dropped();
    await publish(
      tightBus,
      Array.from({ length: 300 }, (_, i) => trade(20_000 + i)),
    );
    for (const end = Date.now() + 5_000; feed.source.backlog.size > 0 && Date.now() < end;) await sleep(10);
    assert.equal(feed.source.backlog.size, 0);
    assert.equal(await dropped(), before + 300 - FANOUT_CHUNK);
    assert.equal(feed.hub.seq('tape.BTCUSDT'), base + 300, 'the dropped trades took their seqs');
    await publish(tightBus, [trade(20_300)]);
    const next = await c.next((m) => tradeId(m) === '20300');
    const got = c.notifications('tape.BTCUSDT');
    assert.equal(got.length, FANOUT_CHUNK + 1);
    assert.deepEqual(
      got.slice(0, FANOUT_CHUNK).map((m) => [m.params?.seq, tradeId(m)]),
      Array.from({ length: FANOUT_CHUNK }, (_, i) => [base + 1 + i, String(20_000 + i)]),
    );
    assert.equal(next.params?.seq, base + 301, 'a jump of 300 - FANOUT_CHUNK: the gap');
    c.ws.close();
  });

  test('a client that stops reading is cut off with 4009 at its buffer bound; a reading client gets every trade, no gap, none dropped', async () => {
    const fast = await client(app);
    const slow = await client(app);
    await fast.request(1, 'public/subscribe', { channels: ['tape.BTCUSDT'] });
    await slow.request(1, 'public/subscribe', { channels: ['tape.BTCUSDT'] });
    slow.ws.pause();
    const slowBefore = await counter('gex_ws_slow_consumer_disconnects_total');
    const droppedBefore = await dropped();
    let sent = 0;
    while ((await counter('gex_ws_slow_consumer_disconnects_total')) === slowBefore && sent < 400_000) {
      await publish(
        bus,
        Array.from({ length: 200 }, (_, i) => trade(100_000 + sent + i, 'BTCUSDT', 400)),
      );
      sent += 200;
      await sleep(10);
    }
    assert.equal(await counter('gex_ws_slow_consumer_disconnects_total'), slowBefore + 1);
    // Past the cut the feed goes on: another round, all of it for the fast client.
    await publish(
      bus,
      Array.from({ length: 200 }, (_, i) => trade(100_000 + sent + i, 'BTCUSDT', 400)),
    );
    sent += 200;
    const last = String(100_000 + sent - 1);
    await fast.next((m) => tradeId(m) === last, 20_000);
    const got = fast.notifications('tape.BTCUSDT');
    assert.equal(got.length, sent);
    assert.deepEqual(
      got.map((m) => tradeId(m)),
      Array.from({ length: sent }, (_, i) => String(100_000 + i)),
    );
    const seqs = got.map((m) => m.params?.seq ?? 0);
    assert.ok(
      seqs.every((s, i) => s === (seqs[0] ?? 0) + i),
      'continuous seqs',
    );
    assert.equal(await dropped(), droppedBefore);
    assert.equal(fast.ws.readyState, fast.ws.OPEN);
    slow.ws.resume();
    const closed = await slow.closed;
    assert.deepEqual(closed, { code: 4009, reason: 'slow consumer: send buffer full (262144 bytes)' });
    const before = slow.notifications('tape.BTCUSDT').length;
    assert.ok(before > 0 && before < sent, `the slow client got ${before} of ${sent} before the cut`);
    fast.ws.close();
  });
});
