import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { AccountsRepository } from '../accounts/repository.ts';
import { buildApp } from '../app.ts';
import { apiConfig } from '../config.ts';
import { SnapshotCache } from '../gex/snapshot-cache.ts';
import { migratedStore, startRedis, userWithKey, type TestRedis } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { connectClient, type TestClient } from './testing/client.ts';

describe('/v2/ws connection cap shared across API processes through Redis, with the fallback rule', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let redis: TestRedis;
  let bus: MemoryBus;
  const apps: ApiInstance[] = [];
  const urls: string[] = [];
  const open: TestClient[] = [];
  let keyA = '';
  let keyB = '';
  const authed = async (url: string, key: string): Promise<{ c: TestClient; first: Promise<unknown> }> => {
    const c = await connectClient(url, key);
    open.push(c);
    return { c, first: Promise.race([c.next((m) => m.id === null).then((m) => m.result), c.closed]) };
  };

  before(async () => {
    t = await migratedStore();
    redis = await startRedis();
    bus = new MemoryBus();
    await ensureProductTopics(bus, 1);
    for (let i = 0; i < 2; i++) {
      const app = await buildApp({
        store: t.store,
        // Not the 50 ms default: with two test files on 2 cores a round trip can take longer, and a timed-out command
        // rightly admits by the per-machine fallback, not what this test looks at (a stopped Redis is seen at once).
        config: apiConfig({ redisUrl: redis.url, redisTimeoutMs: 2_000 }),
        logger: false,
        snapshots: new SnapshotCache(t.store, { pollMs: 0 }),
        feed: { bus },
      });
      await app.listen({ host: '127.0.0.1', port: 0 });
      apps.push(app);
      urls.push(`ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/v2/ws`);
    }
    keyA = await userWithKey(t.store, { userId: 'shared', plan: 'terminal_yearly' });
    keyB = (await new AccountsRepository(t.store).createKey('shared', 'gex')).key;
    for (const app of apps) await app.gex.accounts.refresh();
  });
  after(async () => {
    for (const c of open) c.ws.terminate();
    for (const app of apps) await app.close();
    await bus.close();
    await redis.stop();
    await t.dispose();
  });

  test('two keys of one user on two processes share the starter cap of 2; Redis down: half the cap per machine', async () => {
    const [u1, u2] = urls as [string, string];
    const one = await authed(u1, keyA);
    assert.deepEqual(await one.first, {
      authenticated: true,
      user_id: 'shared',
      level: 'starter',
      connection_cap: 2,
      connections: 1,
      fallback: false,
    });
    const two = await authed(u2, keyB);
    assert.equal(((await two.first) as { connections: number }).connections, 2);
    const three = await authed(u1, keyB);
    assert.deepEqual(await three.first, { code: 4029, reason: 'concurrent connection limit reached (2 for level starter)' });
    two.c.ws.close();
    await two.c.closed;
    await new Promise((r) => setTimeout(r, 100));
    const four = await authed(u2, keyA);
    assert.equal(((await four.first) as { connections: number }).connections, 2);

    await redis.stop();
    const fb = await authed(u1, keyA);
    assert.deepEqual(await fb.first, {
      authenticated: true,
      user_id: 'shared',
      level: 'starter',
      connection_cap: 1,
      connections: 1,
      fallback: true,
    });
    const fb2 = await authed(u1, keyB);
    assert.deepEqual(await fb2.first, {
      code: 4029,
      reason: 'concurrent connection limit reached (1 for level starter, per-machine fallback)',
    });
  });
});
