import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '#clickhouse/store.ts';
import { assertError } from '../testing/assertions.ts';
import { migratedStore, startRedis, testApp, testClock, userWithKey, type TestRedis } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';

// A fixed instant in the future: the Redis month key expires at month end + 1 day (real time).
const NOW = Date.UTC(2030, 0, 15, 12, 0, 30);
/**
 * The Redis command timeout of these instances. The default (50 ms) is for a quiet production machine: with two test
 * files on 2 cores a round trip to redis-server can take longer, and a timed-out command rightly moves an instance to
 * its fallback counter, which is not what these tests look at. A stopped Redis is seen at once whatever the timeout
 * (the client has no offline queue: a command fails as soon as it is sent).
 */
const REDIS_TIMEOUT_MS = 2_000;

describe('rate limits in Redis', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let store: Store;
  let redis: TestRedis;
  let a: ApiInstance;
  let b: ApiInstance;
  let key: string;
  const clock = testClock(NOW);
  const get = (app: ApiInstance) => app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } });

  before(async () => {
    t = await migratedStore();
    store = t.store;
    redis = await startRedis();
    key = await userWithKey(store, { userId: 'shared', plan: 'api_monthly' });
    a = await testApp(store, { redisUrl: redis.url, redisTimeoutMs: REDIS_TIMEOUT_MS }, { clock });
    b = await testApp(store, { redisUrl: redis.url, redisTimeoutMs: REDIS_TIMEOUT_MS }, { clock });
  });
  after(async () => {
    await a.close();
    await b.close();
    await redis.stop();
    await t.dispose();
  });

  test('two API instances share one user counter', async () => {
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await get(i % 2 === 0 ? a : b);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-ratelimit-fallback'], undefined);
      seen.push(`${res.headers['x-ratelimit-remaining']}/${res.headers['x-quota-remaining']}`);
    }
    assert.deepEqual(seen, ['59/99999', '58/99998', '57/99997', '56/99996', '55/99995', '54/99994']);
    for (let i = 7; i <= 60; i++) assert.equal((await get(i % 2 === 0 ? a : b)).statusCode, 200);
    const ra = await get(a);
    const rb = await get(b);
    assertError(ra, 429, 'RATE_LIMIT_EXCEEDED');
    assertError(rb, 429, 'RATE_LIMIT_EXCEEDED');
    assert.equal(ra.headers['retry-after'], '30');
    assert.equal(rb.headers['x-ratelimit-remaining'], '0');
  });

  test('Redis down: stricter per-machine counter with X-RateLimit-Fallback; back to normal when it returns', async () => {
    clock.advance(60_000); // a fresh minute
    await a.gex.usage.flush();
    await b.gex.usage.flush();
    await redis.stop();
    const first = await get(a);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['x-ratelimit-fallback'], 'true');
    assert.equal(first.headers['x-ratelimit-limit'], '30');
    assert.equal(first.headers['x-ratelimit-remaining'], '29');
    // The month count continues from usage_events (60 flushed) + this request.
    assert.equal(first.headers['x-quota-remaining'], String(100_000 - 61));
    for (let i = 2; i <= 30; i++) {
      const res = await get(a);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-ratelimit-fallback'], 'true');
    }
    const limited = await get(a);
    const body = assertError(limited, 429, 'RATE_LIMIT_EXCEEDED');
    assert.equal(limited.headers['x-ratelimit-fallback'], 'true');
    assert.deepEqual(body.error.details, { retry_after_seconds: 30, limit: '30/minute' });

    await redis.start();
    let back: Awaited<ReturnType<typeof get>> | undefined;
    for (let i = 0; i < 50 && back === undefined; i++) {
      await sleep(100);
      const res = await get(a);
      if (res.headers['x-ratelimit-fallback'] === undefined) back = res;
    }
    assert.ok(back, 'the limiter returned to Redis');
    assert.equal(back.statusCode, 200);
    assert.equal(back.headers['x-ratelimit-limit'], '60');
    // Redis restarted empty: the minute starts over; the month is re-seeded from usage_events + pending units.
    assert.equal(back.headers['x-ratelimit-remaining'], '59');
    assert.equal(back.headers['x-quota-remaining'], String(100_000 - 91));
  });
});
