/**
 * WebSocket `public/replay` against the real server (Fastify listening, real `ws` clients, chDB seeded through the
 * processor write path: testing/gex-fixture.ts, plus 40,000 option trades in an older window for the flow-control
 * cases): the same bytes as GET /v2/replay, real-time pacing, pause / resume / stop, one replay per connection, the
 * plan's concurrent-replay cap (shared with the NDJSON route) and history window, invalid params, and a client that
 * stops reading (closed with 4009 within its stall bound while another client's replay and live feed go on).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { storeEvents } from '#processors/snapshots/testing/store-events.ts';
import { encodeMarketEvent } from '#schemas/event-codec.ts';
import type { OptionTrade } from '#schemas/events.ts';
import { buildApp } from '../app.ts';
import { apiConfig } from '../config.ts';
import { SnapshotCache } from '../gex/snapshot-cache.ts';
import { A, C, seedGex } from '../testing/gex-fixture.ts';
import { migratedStore, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { connectClient, type FeedMessage, type TestClient } from '../ws/testing/client.ts';
import { feedTrade } from '../ws/testing/trade.ts';
import { REPLAY_CAPS } from './caps.ts';

const NOW = C + 10_000;
const iso = (ms: number): string => new Date(ms).toISOString();
const FROM = A - 3 * 3600_000;
const TO = C + 5_000;
const ALL = ['tape.BTCUSDT', 'levels.BTCUSDT', 'chain.BTCUSDT'];
/** The older window of many trades (1 ms apart, long instrument names: ~20 MB of replay). */
const BULK_FROM = A - 2 * 86_400_000;
const BULK = 40_000;
const BULK_TO = BULK_FROM + BULK;
const STALL_MS = 600;

const bulkTrade = (n: number): OptionTrade => feedTrade(BULK_FROM + n, n, { prefix: 'bulk', pad: 200 });

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const m = await metricsRegistry.getSingleMetric(name)?.get();
  const v = m?.values.find((x) => Object.entries(labels).every(([k, l]) => x.labels[k] === l));
  return v?.value ?? 0;
}

/** A client that also keeps every text frame as received (for byte comparisons). */
async function rawClient(url: string, key: string): Promise<TestClient & { readonly raw: string[] }> {
  const c = await connectClient(url, key);
  const raw: string[] = [];
  c.ws.on('message', (d: Buffer) => raw.push(d.toString('utf8')));
  await c.next((m) => m.id === null);
  return Object.assign(c, { raw });
}

const replayParams = (m: FeedMessage): Record<string, unknown> => m.params as Record<string, unknown>;
const isDone = (m: FeedMessage): boolean => m.method === 'replay_done';
const replays = (c: TestClient): FeedMessage[] => c.messages.filter((m) => m.method === 'replay');

describe('/v2/ws public/replay', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let bus: MemoryBus;
  let url: string;
  const keys: Record<string, string> = {};
  const open: TestClient[] = [];
  const client = async (key: string): Promise<TestClient & { readonly raw: string[] }> => {
    const c = await rawClient(url, key);
    open.push(c);
    return c;
  };

  before(async () => {
    t = await migratedStore();
    await seedGex(t.store);
    await storeEvents(
      t.store,
      Array.from({ length: BULK }, (_, i) => ({ type: 'option_trade' as const, event: bulkTrade(i) })),
    );
    bus = new MemoryBus({ clientId: 'ws-replay-test' });
    await ensureProductTopics(bus, 2);
    const snapshots = new SnapshotCache(t.store, { pollMs: 0 });
    await snapshots.refresh();
    app = await buildApp({
      store: t.store,
      config: apiConfig({ responseValidation: true, storeReadTimeoutMs: 60_000 }),
      logger: false,
      clock: testClock(NOW),
      snapshots,
      feed: { bus, heartbeatMs: 60_000, replayStallMs: STALL_MS },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/v2/ws`;
    keys['ent'] = await userWithKey(t.store, { userId: 'replay-ent', plan: 'enterprise' });
    keys['starter'] = await userWithKey(t.store, { userId: 'replay-starter', plan: 'terminal_yearly' });
    keys['eval'] = await userWithKey(t.store, { userId: 'replay-eval', plan: 'terminal_yearly', evaluation: true });
    keys['pro'] = await userWithKey(t.store, { userId: 'replay-pro', plan: 'bundle_monthly' });
    await app.gex.accounts.refresh();
  });
  after(async () => {
    for (const c of open) c.ws.terminate();
    await app.close();
    await bus.close();
    await t.dispose();
  });

  test('speed max: the same message bytes as GET /v2/replay, then replay_done with the same window and counts', async () => {
    const c = await client(keys['ent'] as string);
    const ack = await c.request(1, 'public/replay', { channels: ALL, from: iso(FROM), to: TO, speed: 'max' });
    const r = ack.result as Record<string, unknown>;
    assert.match(String(r['replay_id']), /^[0-9a-f-]{36}$/);
    assert.deepEqual({ ...r, replay_id: 'x' }, { replay_id: 'x', channels: ALL, from: iso(FROM), to: iso(TO), speed: 'max' });
    const done = replayParams(await c.next(isDone));
    const http = await app.inject({
      url: `/v2/replay?channels=${encodeURIComponent(ALL.join(','))}&from=${FROM}&to=${TO}`,
      headers: { 'x-api-key': keys['ent'] as string },
    });
    const lines = http.body.trimEnd().split('\n');
    const frames = c.raw.filter((f) => f.startsWith('{"jsonrpc":"2.0","method":"replay",'));
    assert.ok(frames.length >= 11, `${frames.length} frames`);
    assert.deepEqual(
      frames,
      lines.slice(0, -1).map((l) => `{"jsonrpc":"2.0","method":"replay","params":${l}}`),
    );
    const httpDone = JSON.parse(lines[lines.length - 1] as string) as Record<string, unknown>;
    assert.deepEqual(done, {
      replay_id: r['replay_id'],
      status: 'completed',
      from: httpDone['from'],
      to: httpDone['to'],
      counts: httpDone['counts'],
    });
    // The connection is free again: a second replay may start.
    assert.ok((await c.request(2, 'public/replay', { channels: ['levels.BTCUSDT'], from: FROM, to: TO })).result);
    assert.equal(replayParams(await c.next((m) => isDone(m) && replayParams(m)['replay_id'] !== r['replay_id']))['status'], 'completed');
  });

  test('speed x: a message is sent (at - from) / x after the start; a pause holds it and moves it later', async () => {
    const from = A - 1_000;
    const speed = (C - from) / 900; // 61 s of history in 0.9 s of wall time
    const expectMs = (C - from) / speed;
    const c = await client(keys['ent'] as string);
    const t0 = performance.now();
    await c.request(1, 'public/replay', { channels: ['levels.BTCUSDT'], from, to: TO, speed });
    await c.next((m) => m.method === 'replay');
    const firstMs = performance.now() - t0;
    assert.ok(firstMs >= (A - from) / speed - 5, `first message after ${firstMs} ms`);
    const paused = await c.request(2, 'public/replay_pause');
    assert.ok(paused.result, JSON.stringify(paused));
    assert.equal((paused.result as Record<string, unknown>)['state'], 'paused');
    const during = replays(c).length;
    await sleep(500);
    assert.equal(replays(c).length, during, 'nothing is sent while paused');
    assert.equal(((await c.request(3, 'public/replay_resume')).result as Record<string, unknown>)['state'], 'running');
    await c.next(isDone, 10_000);
    const totalMs = performance.now() - t0;
    assert.equal(replays(c).length, 3);
    assert.ok(totalMs >= expectMs + 500 - 20, `done after ${totalMs} ms; real time ${expectMs} ms + 500 ms paused`);
    // Not held much longer than the pacing asks: the margin is for the replay thread, which runs at nice 19 and waits
    // for a core behind another test file on a busy machine.
    assert.ok(totalMs < expectMs + 500 + 5_000, `done after ${totalMs} ms`);
  });

  test('stop ends the replay with status stopped; one replay per connection; pause without a replay is an error', async () => {
    const c = await client(keys['ent'] as string);
    const none = await c.request(1, 'public/replay_pause');
    assert.deepEqual(none.error, { code: 10004, message: 'no replay running on this connection' });
    const ack = await c.request(2, 'public/replay', { channels: ['tape.BTCUSDT'], from: BULK_FROM, to: BULK_TO, speed: 1 });
    assert.ok(ack.result);
    const second = await c.request(3, 'public/replay', { channels: ['levels.BTCUSDT'], from: FROM, to: TO });
    assert.equal(second.error?.code, 10003);
    await c.next((m) => m.method === 'replay');
    const stopped = await c.request(4, 'public/replay_stop');
    assert.equal((stopped.result as Record<string, unknown>)['state'], 'stopping');
    const done = replayParams(await c.next(isDone));
    assert.equal(done['status'], 'stopped');
    const sent = (done['counts'] as Record<string, number>)['tape.BTCUSDT'] as number;
    assert.ok(sent >= 1 && sent < 2_000, `${sent} sent at real time before the stop`);
    assert.equal(replays(c).length, sent);
  });

  test('plan cap: starter runs one replay at a time, across connections and GET /v2/replay', async () => {
    assert.equal(REPLAY_CAPS.starter, 1);
    const a = await client(keys['starter'] as string);
    const b = await client(keys['starter'] as string);
    assert.ok((await a.request(1, 'public/replay', { channels: ['tape.BTCUSDT'], from: BULK_FROM, to: BULK_TO, speed: 1 })).result);
    const refused = await b.request(1, 'public/replay', { channels: ['levels.BTCUSDT'], from: FROM, to: TO });
    assert.deepEqual(refused.error, {
      code: 10005,
      message: 'concurrent replay limit reached (1 for level starter)',
      data: { limit: 1, count: 1 },
    });
    const http = await app.inject({
      url: `/v2/replay?channels=levels.BTCUSDT&from=${FROM}&to=${TO}`,
      headers: { 'x-api-key': keys['starter'] as string },
    });
    assert.equal(http.statusCode, 429, http.body);
    assert.equal(http.headers['retry-after'], '5');
    assert.equal(http.json<{ error: { code: string } }>().error.code, 'RATE_LIMIT_EXCEEDED');
    await a.request(2, 'public/replay_stop');
    await a.next(isDone);
    await sleep(20);
    assert.ok((await b.request(2, 'public/replay', { channels: ['levels.BTCUSDT'], from: FROM, to: TO })).result);
    assert.equal(replayParams(await b.next(isDone))['status'], 'completed');
    for (const c of [a, b]) c.ws.close();
    await Promise.all([a.closed, b.closed]);
  });

  test("the plan's history window: an evaluation key's window starts at its floor, reported as history_clamp", async () => {
    const c = await client(keys['eval'] as string);
    const from = NOW - 400 * 86_400_000;
    const r = (await c.request(1, 'public/replay', { channels: ['levels.BTCUSDT'], from, to: TO })).result as Record<string, unknown>;
    const clamp = r['history_clamp'] as Record<string, unknown>;
    assert.equal(clamp['requested_from'], iso(from));
    assert.equal(clamp['enforced'], true);
    assert.equal(r['from'], clamp['served_from']);
    assert.ok(Date.parse(String(r['from'])) > from);
    const done = replayParams(await c.next(isDone));
    assert.deepEqual(done['history_clamp'], clamp);
    assert.deepEqual(done['counts'], { 'levels.BTCUSDT': 3 });
  });

  test('invalid params: -32602 with every problem in data.errors', async () => {
    const c = await client(keys['ent'] as string);
    const r = await c.request(1, 'public/replay', { channels: ['levels.NOPE', 'tape.BTCUSDT'], from: 'yesterday', to: TO, speed: 0 });
    assert.equal(r.error?.code, -32602);
    const errors = (r.error?.data as { errors: { name: string }[] }).errors.map((e) => e.name).sort();
    assert.deepEqual(errors, ['channels', 'from', 'speed']);
    const notArray = await c.request(2, 'public/replay', { channels: 'tape.BTCUSDT', from: FROM, to: TO });
    assert.equal(notArray.error?.code, -32602);
  });

  test('a client that stops reading is closed with 4009 within its stall bound; another client meanwhile gets its replay and the live feed', async () => {
    const slow = await client(keys['pro'] as string);
    const other = await client(keys['ent'] as string);
    const closesBefore = await metric('gex_ws_closes_total', { code: '4009' });
    const slowBefore = await metric('gex_ws_slow_consumer_disconnects_total', {});
    const stoppedBefore = await metric('gex_replays_total', { transport: 'ws', status: 'stopped' });
    await other.request(1, 'public/subscribe', { channels: ['tape.ETHUSDT'] });
    await slow.request(1, 'public/replay', { channels: ['tape.BTCUSDT'], from: BULK_FROM, to: BULK_TO, speed: 'max' });
    slow.ws.pause();
    // The server gives up on the held client within its stall bound; it reads again as soon as that close is counted
    // (within the server's 5 s grace for reading a close frame, however long the other replay below takes).
    const cutOff = (async (): Promise<void> => {
      const deadline = performance.now() + 20_000;
      while ((await metric('gex_ws_closes_total', { code: '4009' })) === closesBefore && performance.now() < deadline) await sleep(20);
      slow.ws.resume();
    })();
    // The other client's replay of the same 40,000 trades completes while the slow one is held.
    await other.request(2, 'public/replay', { channels: ['tape.BTCUSDT'], from: BULK_FROM, to: BULK_TO, speed: 'max' });
    const done = replayParams(await other.next(isDone, 60_000));
    assert.deepEqual(done['counts'], { 'tape.BTCUSDT': BULK });
    assert.equal(replays(other).length, BULK);
    assert.deepEqual(
      replays(other)
        .map((m) => (m.params as { seq: number }).seq)
        .slice(-3),
      [BULK - 2, BULK - 1, BULK],
    );
    // Once the held client reads again it finds the 4009 close.
    await cutOff;
    assert.equal(await metric('gex_ws_closes_total', { code: '4009' }), closesBefore + 1);
    assert.equal(await metric('gex_ws_slow_consumer_disconnects_total', {}), slowBefore + 1);
    const closed = await Promise.race([slow.closed, sleep(10_000).then(() => ({ code: 0, reason: 'no close seen in 10 s' }))]);
    assert.equal(closed.code, 4009, closed.reason);
    assert.match(closed.reason, /replay not read for 0.6 s/);
    const got = replays(slow).length;
    assert.ok(got > 0 && got < BULK, `the held client got ${got} messages before it was cut off (${closed.code} ${closed.reason})`);
    // The live feed still reaches the other client.
    const live = bulkTrade(BULK + 1);
    const enc = encodeMarketEvent({ type: 'option_trade', event: { ...live, symbol: 'ETHUSDT', id: 'deribit:live:1', ts: NOW } });
    await bus.publish(enc.topic, [enc.message]);
    await other.next((m) => m.method === 'subscription' && m.params?.channel === 'tape.ETHUSDT', 5_000);
    await sleep(50);
    assert.equal(await metric('gex_running_replays', { transport: 'ws' }), 0);
    assert.equal(await metric('gex_replays_total', { transport: 'ws', status: 'stopped' }), stoppedBefore + 1);
  });

  test('a session that closes mid-replay releases its replay (the cap counts it no more)', async () => {
    const a = await client(keys['starter'] as string);
    await a.request(1, 'public/replay', { channels: ['tape.BTCUSDT'], from: BULK_FROM, to: BULK_TO, speed: 1 });
    a.ws.close();
    await a.closed;
    await sleep(50);
    const b = await client(keys['starter'] as string);
    assert.ok((await b.request(1, 'public/replay', { channels: ['levels.BTCUSDT'], from: FROM, to: TO })).result);
    await b.next(isDone);
    assert.equal(WebSocket.OPEN, b.ws.readyState);
  });
});
