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
import { AccountsRepository } from '../accounts/repository.ts';
import { connectClient, type TestClient } from './testing/client.ts';
import { feedTrade } from './testing/trade.ts';

const BASE_TS = Date.UTC(2026, 2, 20, 12, 0, 0);

const trade = (n: number, symbol: 'BTCUSDT' | 'ETHUSDT' = 'BTCUSDT', pad = 0): OptionTrade => feedTrade(BASE_TS + n, n, { symbol, pad });

async function slowDisconnects(): Promise<number> {
  const m = await metricsRegistry.getSingleMetric('gex_ws_slow_consumer_disconnects_total')?.get();
  return m?.values[0]?.value ?? 0;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('/v2/ws: real ws clients against the real server', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let bus: MemoryBus;
  let url: string;
  const keys: Record<string, string> = {};
  const open: TestClient[] = [];
  const client = async (key?: string): Promise<TestClient> => {
    const c = await connectClient(url, key);
    open.push(c);
    return c;
  };
  const publish = (trades: readonly OptionTrade[]): Promise<void> => {
    const encoded = trades.map((tr) => encodeMarketEvent({ type: 'option_trade', event: tr }));
    return bus.publish(
      encoded[0]?.topic ?? '',
      encoded.map((e) => e.message),
    );
  };

  before(async () => {
    t = await migratedStore();
    bus = new MemoryBus({ clientId: 'ws-test' });
    await ensureProductTopics(bus, 2);
    const snapshots = new SnapshotCache(t.store, { pollMs: 0 });
    app = await buildApp({
      store: t.store,
      config: apiConfig({ responseValidation: true }),
      logger: false,
      snapshots,
      feed: { bus, heartbeatMs: 150, authTimeoutMs: 300, maxBufferedBytes: 256 * 1024 },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/v2/ws`;
    keys['starterA'] = await userWithKey(t.store, { userId: 'starter', plan: 'terminal_yearly' });
    keys['starterB'] = (await new AccountsRepository(t.store).createKey('starter', 'gex')).key;
    keys['pro'] = await userWithKey(t.store, { userId: 'pro', plan: 'bundle_monthly' });
    keys['lapsed'] = await userWithKey(t.store, { userId: 'lapsed', plan: 'api_monthly', status: 'lapsed' });
    await app.gex.accounts.refresh();
  });
  after(async () => {
    for (const c of open) c.ws.terminate();
    await app.close();
    await bus.close();
    await t.dispose();
  });

  test('auth failures become close codes with a reason', async () => {
    assert.deepEqual(await (await client('gex_live_' + 'A'.repeat(32))).closed, { code: 4001, reason: 'invalid API key' });
    const lapsed = await (await client(keys['lapsed'])).closed;
    assert.equal(lapsed.code, 4003);
    assert.match(lapsed.reason, /status: lapsed/);
    assert.deepEqual(await (await client()).closed, { code: 4008, reason: 'no public/auth within 5 s' });
    const notAuth = await client();
    notAuth.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/subscribe', params: { channels: ['tape.BTCUSDT'] } }));
    assert.equal((await notAuth.closed).code, 4001);
    const badFrame = await client();
    badFrame.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/auth', params: { api_key: ` ${keys['pro']}` } }));
    assert.deepEqual(await badFrame.closed, { code: 4001, reason: 'invalid API key' });
  });

  test('browser auth: public/auth as the first frame, answered with the same id', async () => {
    const c = await client();
    const r = await c.request(7, 'public/auth', { api_key: keys['pro'] });
    assert.deepEqual(r.result, { authenticated: true, user_id: 'pro', level: 'pro', connection_cap: 20, connections: 1, fallback: false });
    c.ws.close();
    await c.closed;
  });

  test('connection cap (starter: 2) is shared by the two keys of one user', async () => {
    const a = await client(keys['starterA']);
    await a.next((m) => m.id === null);
    const b = await client(keys['starterB']);
    assert.deepEqual((await b.next((m) => m.id === null)).result, {
      authenticated: true,
      user_id: 'starter',
      level: 'starter',
      connection_cap: 2,
      connections: 2,
      fallback: false,
    });
    const third = await client(keys['starterA']);
    assert.deepEqual(await third.closed, { code: 4029, reason: 'concurrent connection limit reached (2 for level starter)' });
    b.ws.close();
    await b.closed;
    await sleep(50);
    const again = await client(keys['starterB']);
    assert.equal(((await again.next((m) => m.id === null)).result as { connections: number }).connections, 2);
    a.ws.close();
    again.ws.close();
    await Promise.all([a.closed, again.closed]);
  });

  test('subscribe, unknown channel or symbol, notifications with the tape row, unsubscribe', async () => {
    const c = await client(keys['pro']);
    await c.next((m) => m.id === null);
    const bad = await c.request(1, 'public/subscribe', {
      channels: ['tape.BTCUSDT', 'tape.DOGEUSDT', 'book.BTCUSDT', 'levels.BTCUSDT.nowhere'],
    });
    assert.deepEqual(bad.error, {
      code: 10001,
      message: 'unknown channel or symbol; channels: tape.{symbol}, levels.{symbol}[.{venue,...}], chain.{symbol}[.{venue,...}]',
      data: { channels: ['tape.DOGEUSDT', 'book.BTCUSDT', 'levels.BTCUSDT.nowhere'] },
    });
    const ok = await c.request(2, 'public/subscribe', { channels: ['tape.BTCUSDT', 'levels.BTCUSDT.okx,deribit'] });
    assert.deepEqual(ok.result, ['tape.BTCUSDT', 'levels.BTCUSDT.deribit,okx']);
    assert.equal((await c.request(3, 'public/unknown')).error?.code, -32601);
    await publish([trade(1, 'ETHUSDT'), trade(2)]);
    const n = await c.next((m) => m.method === 'subscription');
    assert.equal(n.params?.channel, 'tape.BTCUSDT');
    assert.deepEqual(n.params?.data, JSON.parse(JSON.stringify(tapeRow(trade(2)))));
    assert.deepEqual((await c.request(4, 'public/unsubscribe', { channels: ['tape.BTCUSDT'] })).result, ['tape.BTCUSDT']);
    // A watcher proves the next trade was fanned out; the unsubscribed client got nothing more.
    const watcher = await client(keys['pro']);
    await watcher.request(1, 'public/subscribe', { channels: ['tape.BTCUSDT'] });
    await publish([trade(3)]);
    await watcher.next((m) => m.method === 'subscription');
    assert.equal((await c.request(5, 'public/ping')).result, 'pong');
    assert.equal(c.notifications('tape.BTCUSDT').length, 1);
    c.ws.close();
    watcher.ws.close();
  });

  test('requests sent before the welcome wait for the session: none is lost, answers in order; a flood closes 1008', async (t0) => {
    // Keys never verified yet (no cached verdict) and a key look-up that takes 150 ms, as a store or Redis
    // round trip can: the frames below reach the server while the session is still being opened.
    const repo = new AccountsRepository(t.store);
    const fresh = (await repo.createKey('pro', 'gex')).key;
    const another = (await repo.createKey('pro', 'gex')).key;
    await app.gex.accounts.refresh();
    const accounts = app.gex.accounts;
    const authenticate = accounts.authenticate.bind(accounts);
    accounts.authenticate = async (v) => {
      await sleep(150);
      return authenticate(v);
    };
    t0.after(() => (accounts.authenticate = authenticate));
    const early = await client(fresh);
    early.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'public/subscribe', params: { channels: ['tape.BTCUSDT'] } }));
    early.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'public/ping', params: {} }));
    assert.deepEqual((await early.next((m) => m.id === 1)).result, ['tape.BTCUSDT']);
    assert.equal((await early.next((m) => m.id === 2)).result, 'pong');
    assert.deepEqual(
      early.messages.map((m) => m.id),
      [null, 1, 2],
      'the welcome, then the answers in the order sent',
    );
    await publish([trade(40)]);
    assert.equal((await early.next((m) => m.method === 'subscription')).params?.channel, 'tape.BTCUSDT');
    // Browser auth: public/auth and a subscribe in the same tick.
    const browser = await client();
    browser.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'public/auth', params: { api_key: keys['pro'] } }));
    browser.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'public/subscribe', params: { channels: ['tape.ETHUSDT'] } }));
    assert.equal((await browser.next((m) => m.id === 5)).error, undefined);
    assert.deepEqual((await browser.next((m) => m.id === 6)).result, ['tape.ETHUSDT']);
    const flood = await client(another);
    for (let i = 0; i < 33; i++) flood.ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'public/ping', params: {} }));
    assert.deepEqual(await flood.closed, { code: 1008, reason: 'more than 32 frames before the welcome' });
    early.ws.close();
    browser.ws.close();
  });

  test('sequence numbers are continuous per channel', async () => {
    const c = await client(keys['pro']);
    await c.request(1, 'public/subscribe', { channels: ['tape.ETHUSDT'] });
    await publish(Array.from({ length: 300 }, (_, i) => trade(1000 + i, 'ETHUSDT')));
    await c.next((m) => m.method === 'subscription' && (m.params?.data as { trade_id: string }).trade_id === '1299');
    const seqs = c.notifications('tape.ETHUSDT').map((m) => m.params?.seq ?? 0);
    assert.equal(seqs.length, 300);
    for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], (seqs[0] ?? 0) + i);
    c.ws.close();
  });

  test('server heartbeats and client pings', async () => {
    const c = await client(keys['pro']);
    const hb = await c.next((m) => m.method === 'heartbeat', 2_000);
    assert.equal(hb.params?.type, 'heartbeat');
    assert.equal((await c.request(9, 'public/ping')).result, 'pong');
    c.ws.close();
  });

  test('a slow consumer is cut off with 4009 while a fast one keeps receiving', async () => {
    const fast = await client(keys['pro']);
    const slow = await client(keys['pro']);
    await fast.request(1, 'public/subscribe', { channels: ['tape.BTCUSDT'] });
    await slow.request(1, 'public/subscribe', { channels: ['tape.BTCUSDT'] });
    slow.ws.pause();
    const before = await slowDisconnects();
    let sent = 0;
    while ((await slowDisconnects()) === before && sent < 400_000) {
      // Small rounds with pauses: the fast client (same event loop) always gets to read between them.
      await publish(Array.from({ length: 200 }, (_, i) => trade(10_000 + sent + i, 'BTCUSDT', 400)));
      sent += 200;
      await sleep(10);
    }
    assert.equal(await slowDisconnects(), before + 1);
    const last = String(10_000 + sent - 1);
    await fast.next((m) => (m.params?.data as { trade_id?: string } | undefined)?.trade_id === last, 20_000);
    assert.equal(fast.ws.readyState, fast.ws.OPEN);
    slow.ws.resume();
    const closed = await slow.closed;
    assert.equal(closed.code, 4009);
    assert.equal(closed.reason, 'slow consumer: send buffer full (262144 bytes)');
    fast.ws.close();
  });

  test('a malformed bus message is skipped and counted; the feed goes on', async () => {
    const skipped = async (): Promise<number> =>
      (await metricsRegistry.getSingleMetric('gex_ws_feed_skipped_total')?.get())?.values.find((v) => v.labels['stream'] === 'tape')
        ?.value ?? 0;
    const before = await skipped();
    const c = await client(keys['pro']);
    await c.request(1, 'public/subscribe', { channels: ['tape.BTCUSDT'] });
    const good = encodeMarketEvent({ type: 'option_trade', event: trade(777_777) });
    await bus.publish(good.topic, [{ key: good.message.key, value: Buffer.from('not avro') }, good.message]);
    await c.next((m) => (m.params?.data as { trade_id?: string } | undefined)?.trade_id === '777777');
    assert.equal(await skipped(), before + 1);
    c.ws.close();
  });

  test('/v2/meta publishes the caps and channels; /v2/asyncapi.json describes the feed', async () => {
    const meta = await app.inject({ url: '/v2/meta', headers: { 'x-api-key': keys['pro'] ?? '' } });
    assert.equal(meta.statusCode, 200, meta.body);
    const ws = meta.json<{
      data: {
        websocket: {
          path: string;
          connection_caps: unknown;
          close_codes: { code: number }[];
          channels: { name: string; status: string }[];
          methods: string[];
          replay: { concurrent_caps: unknown; speed: unknown };
        };
      };
    }>().data.websocket;
    assert.equal(ws.path, '/v2/ws');
    assert.deepEqual(ws.connection_caps, [
      { level: 'starter', max_connections: 2 },
      { level: 'standard', max_connections: 5 },
      { level: 'pro', max_connections: 20 },
      { level: 'enterprise', max_connections: 200 },
    ]);
    assert.deepEqual(
      ws.close_codes.map((c) => c.code),
      [1001, 1008, 4001, 4001, 4003, 4008, 4009, 4029],
    );
    assert.deepEqual(
      ws.channels.map((c) => c.status),
      ['live', 'live', 'live'],
    );
    assert.deepEqual(ws.methods.slice(-4), ['public/replay', 'public/replay_pause', 'public/replay_resume', 'public/replay_stop']);
    assert.deepEqual(ws.replay.concurrent_caps, [
      { level: 'starter', max_replays: 1 },
      { level: 'standard', max_replays: 2 },
      { level: 'pro', max_replays: 5 },
      { level: 'enterprise', max_replays: 20 },
    ]);
    assert.deepEqual(ws.replay.speed, { default: 'max', min: 0.1, max: 1_000_000 });
    assert.equal((await app.inject({ url: '/v2/asyncapi.json' })).statusCode, 401);
    const doc = await app.inject({ url: '/v2/asyncapi.json', headers: { 'x-api-key': keys['pro'] ?? '' } });
    assert.equal(doc.statusCode, 200);
    const body = doc.json<{ asyncapi: string; channels: { feed: { address: string } }; operations: Record<string, unknown> }>();
    assert.equal(body.asyncapi, '3.0.0');
    assert.equal(body.channels.feed.address, '/v2/ws');
    assert.deepEqual(Object.keys(body.operations), [
      'sendAuth',
      'sendSubscribe',
      'answer',
      'heartbeat',
      'publishTape',
      'publishLevels',
      'publishChain',
      'sendReplay',
      'publishReplay',
    ]);
  });

  test('shutdown closes sessions with 1001 going away', async () => {
    const c = await client(keys['pro']);
    await c.next((m) => m.id === null);
    await app.close();
    assert.deepEqual(await c.closed, { code: 1001, reason: 'server shutting down' });
  });
});
