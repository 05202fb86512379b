import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { Store } from '#clickhouse/store.ts';
import { AccountsRepository } from '../accounts/repository.ts';
import { assertError, assertOk } from '../testing/assertions.ts';
import { migratedStore, testApp, testClock, userWithKey } from '../testing/harness.ts';
import type { ApiInstance, RouteFamily } from '../types.ts';

// 30 s into a minute; the month ends 2026-11-01T00:00:00Z.
const NOW = Date.UTC(2026, 9, 15, 12, 0, 30);
const MINUTE_END = Date.UTC(2026, 9, 15, 12, 1, 0) / 1000;
const MONTH_END = Date.UTC(2026, 10, 1) / 1000;

/** A route charging one quota unit per listed series (like the market bundle). */
const unitsRoute: RouteFamily = async (app, ctx) => {
  app.get('/v2/test/units', {
    config: { quotaUnits: (q) => String((q as Record<string, unknown>).series ?? 'a').split(',').length },
    schema: { querystring: z.object({ series: z.string().optional() }) },
    handler: async (request) => ctx.respond.ok(request, { units: 'charged' }, { extra: { quota_units_charged: 3 } }),
  });
};

describe('rate limits and quotas (in-process counters)', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let store: Store;
  let app: ApiInstance;
  const clock = testClock(NOW);

  before(async () => {
    t = await migratedStore();
    store = t.store;
    app = await testApp(store, { quotaStarter: 5, healthPerIpPerMinute: 60 }, { clock, routes: [unitsRoute] });
  });
  after(async () => {
    await app.close();
    await t.dispose();
  });

  test("per-minute burst shared across a user's keys: headers, 429, Retry-After, next minute", async () => {
    const k1 = await userWithKey(store, { userId: 'burst', plan: 'api_monthly' });
    const k2 = (await new AccountsRepository(store).createKey('burst', 'gex')).key;
    await app.gex.accounts.refresh();
    const first = await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': k1 } });
    assertOk(first);
    assert.equal(first.headers['x-ratelimit-limit'], '60');
    assert.equal(first.headers['x-ratelimit-remaining'], '59');
    assert.equal(first.headers['x-ratelimit-reset'], String(MINUTE_END));
    assert.equal(first.headers['x-quota-limit'], '100000');
    assert.equal(first.headers['x-quota-remaining'], '99999');
    assert.equal(first.headers['x-quota-reset'], String(MONTH_END));
    assert.equal(first.headers['retry-after'], undefined);
    assert.equal(first.headers['x-ratelimit-fallback'], undefined);
    assert.deepEqual(first.json<{ meta: { rate_limit: unknown } }>().meta.rate_limit, { limit: 60, remaining: 59, reset: MINUTE_END });
    for (let i = 2; i <= 60; i++) {
      const res = await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': i % 2 === 0 ? k2 : k1 } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-ratelimit-remaining'], String(60 - i));
    }
    for (const key of [k1, k2]) {
      const res = await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } });
      const body = assertError(res, 429, 'RATE_LIMIT_EXCEEDED');
      assert.equal(res.headers['retry-after'], '30');
      assert.deepEqual(body.error.details, { retry_after_seconds: 30, limit: '60/minute' });
      assert.equal(res.headers['x-ratelimit-remaining'], '0');
      assert.equal(res.headers['x-quota-remaining'], '99940');
    }
    clock.advance(30_000);
    const next = await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': k1 } });
    assertOk(next);
    assert.equal(next.headers['x-ratelimit-remaining'], '59');
    assert.equal(next.headers['x-ratelimit-reset'], String(MINUTE_END + 60));
    assert.equal(next.headers['x-quota-remaining'], '99939');
    clock.set(NOW);
  });

  test('monthly quota: 429 with Retry-After until the month rolls over', async () => {
    const key = await userWithKey(store, { userId: 'quota', plan: 'terminal_yearly' });
    await app.gex.accounts.refresh();
    for (let i = 1; i <= 5; i++) {
      const res = await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-quota-limit'], '5');
      assert.equal(res.headers['x-quota-remaining'], String(5 - i));
      assert.equal(res.headers['x-ratelimit-limit'], '30');
    }
    const res = await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } });
    const body = assertError(res, 429, 'RATE_LIMIT_EXCEEDED');
    const retry = MONTH_END - NOW / 1000;
    assert.equal(res.headers['retry-after'], String(retry));
    assert.deepEqual(body.error.details, { retry_after_seconds: retry, limit: '5/month' });
    assert.equal(res.headers['x-quota-remaining'], '0');
    // Next month: fresh quota.
    clock.set(Date.UTC(2026, 10, 1, 0, 0, 5));
    const again = await app.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } });
    assertOk(again);
    assert.equal(again.headers['x-quota-remaining'], '4');
    assert.equal(again.headers['x-quota-reset'], String(Date.UTC(2026, 11, 1) / 1000));
    clock.set(NOW);
  });

  test('a route can charge N quota units for one request; the burst counts one', async () => {
    const key = await userWithKey(store, { userId: 'units', plan: 'bundle_monthly' });
    await app.gex.accounts.refresh();
    const res = await app.inject({ url: '/v2/test/units?series=candles,funding,cvd_perp', headers: { 'x-api-key': key } });
    assertOk(res);
    assert.equal(res.headers['x-quota-remaining'], String(500_000 - 3));
    assert.equal(res.headers['x-ratelimit-remaining'], '119');
  });

  test('errors after auth carry the limit headers (422 counts)', async () => {
    const key = await userWithKey(store, { userId: 'val', plan: 'api_yearly' });
    await app.gex.accounts.refresh();
    const res = await app.inject({ url: '/v2/expiries?symbol=DOGE&max_dte=-1&venue=kraken', headers: { 'x-api-key': key } });
    const body = assertError(res, 422, 'VALIDATION_ERROR');
    assert.deepEqual(body.error.details, {
      errors: [
        { name: 'symbol', location: 'query', message: 'must be one of BTCUSDT, ETHUSDT, SOLUSDT, HYPEUSDT', received: 'DOGE' },
        {
          name: 'venue',
          location: 'query',
          message: 'must be one of deribit, bybit, okx, binance, derive, thalex, delta_india, delta, bullish, paradex',
          received: 'kraken',
        },
        { name: 'max_dte', location: 'query', message: 'must be >= 0', received: '-1' },
      ],
    });
    assert.equal(res.headers['x-ratelimit-limit'], '120');
    assert.equal(res.headers['x-ratelimit-remaining'], '119');
    assert.equal(res.headers['x-quota-remaining'], '99999');
  });

  test('/v2/health: 60 per minute per IP', async () => {
    for (let i = 1; i <= 60; i++) {
      const res = await app.inject({ url: '/v2/health', remoteAddress: '10.0.0.1' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-ratelimit-limit'], '60');
      assert.equal(res.headers['x-ratelimit-remaining'], String(60 - i));
    }
    const res = await app.inject({ url: '/v2/health', remoteAddress: '10.0.0.1' });
    const body = assertError(res, 429, 'RATE_LIMIT_EXCEEDED');
    assert.equal(res.headers['retry-after'], '30');
    assert.deepEqual(body.error.details, { retry_after_seconds: 30, limit: '60/minute' });
    assert.equal((await app.inject({ url: '/v2/health', remoteAddress: '10.0.0.2' })).statusCode, 200);
  });

  test('monthly usage survives an app restart (usage_events seeds the counter)', async () => {
    const key = await userWithKey(store, { userId: 'restart', plan: 'api_monthly' });
    const a1 = await testApp(store, {}, { clock });
    for (let i = 0; i < 3; i++) assert.equal((await a1.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } })).statusCode, 200);
    await a1.close();
    const rows = await store.query<{ units: string }>(
      "SELECT toString(sum(units)) AS units FROM usage_events WHERE user_id = 'restart' AND month = 202610",
    );
    assert.equal(rows[0]?.units, '3');
    const a2 = await testApp(store, {}, { clock });
    const res = await a2.inject({ url: '/v2/changelog', headers: { 'x-api-key': key } });
    assert.equal(res.headers['x-quota-remaining'], String(100_000 - 4));
    await a2.close();
  });
});
