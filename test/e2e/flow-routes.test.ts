/**
 * Sandbox end to end for the flow routes (/v2/tape, /v2/tape/recent, strike-heat, flow-by-strike, pcr,
 * premium-tide, range): `gex demo`'s roles (sandbox market ->
 * connectors -> bus -> raw writer + snapshot processor -> API) in one process, a short snapshot interval; after
 * the first ticks every route answers 200 with non-empty data (pcr: through a second app whose clock is one 5-minute bucket ahead).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '#platform/settings.ts';
import { createRuntimeContext, type RuntimeContext } from '#app/runtime/context.ts';
import { startRoles } from '#app/cli/commands/roles.ts';
import { PCR_STEP_MS } from '#query-api/options/oi-read.ts';
import { testApp } from '#query-api/testing/harness.ts';

const INTERVAL_MS = 3_000;

describe('sandbox -> raw writer + processors -> the flow routes', () => {
  let dir: string;
  let ctx: RuntimeContext;
  let base: string;
  let key: string;
  let startedAt = 0;

  before(async () => {
    startedAt = Date.now();
    dir = await mkdtemp(join(tmpdir(), 'gex-flow-e2e-'));
    const config = loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      ADMIN_PORT: '0',
      HOST: '127.0.0.1',
      SYMBOLS: 'BTCUSDT',
      VENUES: 'deribit,okx,bybit',
      SNAPSHOT_INTERVAL_MS: String(INTERVAL_MS),
      SANDBOX: 'true',
    });
    ctx = await createRuntimeContext(config, { metrics: false });
    const { api } = await startRoles(ctx, new Set(['ingest', 'processors', 'query-api']), true);
    assert.ok(api !== null);
    await api.app.gex.repository.upsertUser({ userId: 'e2e', plan: 'bundle_monthly', status: 'active', evaluation: false });
    key = (await api.app.gex.repository.createKey('e2e', 'gex')).key;
    await api.app.gex.accounts.refresh();
    base = api.url;
  });
  after(async () => {
    await ctx.shutdown();
    await rm(dir, { recursive: true, force: true });
  });

  type Answer = { status: number; body: { data?: Record<string, unknown> } };
  /** A route of the product's API server. */
  const get = async (path: string): Promise<Answer> => {
    const r = await fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
    return { status: r.status, body: (await r.json()) as Answer['body'] };
  };

  /** Poll until the route answers 200 with `ok(data)` (the first ticks must have been stored); `via` asks it. */
  async function eventually(
    path: string,
    ok: (d: Record<string, unknown>) => boolean,
    ms = 90_000,
    via: (path: string) => Promise<Answer> = get,
  ): Promise<Record<string, unknown>> {
    const end = Date.now() + ms;
    let last = '';
    while (Date.now() < end) {
      const r = await via(path);
      if (r.status === 200 && r.body.data !== undefined && ok(r.body.data)) return r.body.data;
      last = `${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
      await sleep(500);
    }
    throw new Error(`${path}: no non-empty answer within ${ms} ms; last ${last}`);
  }

  test('every flow route answers with non-empty data after the first trades and ticks', async () => {
    const nonEmpty = (field: string) => (d: Record<string, unknown>) => Array.isArray(d[field]) && (d[field] as unknown[]).length > 0;
    const tape = await eventually('/v2/tape?symbol=BTCUSDT&limit=50', nonEmpty('trades'));
    const first = (tape['trades'] as { symbol: string; premium_usd: number }[])[0];
    assert.equal(first?.symbol, 'BTCUSDT');
    assert.ok((first?.premium_usd ?? 0) > 0);
    await eventually('/v2/tape/recent?symbol=BTCUSDT&limit=5', nonEmpty('trades'));
    await eventually('/v2/tape/strike-heat?symbol=BTCUSDT', nonEmpty('strikes'));
    await eventually('/v2/tape/flow-by-strike?symbol=BTCUSDT&include=by_venue', nonEmpty('strikes'));
    await eventually('/v2/options/premium-tide?symbol=BTCUSDT', nonEmpty('points'));
    const range = await eventually('/v2/options/range?symbol=BTCUSDT&include=past', (d) => {
      const h = (d['horizons'] as Record<string, { bands: unknown }> | undefined)?.['24h'];
      return typeof d['spot'] === 'number' && typeof d['dvol'] === 'number' && h?.bands !== null && h?.bands !== undefined;
    });
    const h1 = (range['horizons'] as Record<string, { bands: Record<string, [number, number]>; past?: unknown[] }>)['1h'];
    const spot = range['spot'] as number;
    assert.ok(h1 !== undefined && h1.bands['68']![0] < spot && spot < h1.bands['68']![1], 'spot inside its own 68 % band');
    assert.ok(h1.bands['90']![0] < h1.bands['68']![0], 'the 90 % band is wider');
    assert.ok(Array.isArray(h1.past) && h1.past.length > 0);
  });

  // The put/call ratio has a point per COMPLETED 5-minute bucket, so the product's own API answers with one only after
  // the first 5-minute boundary that follows its first stored ticker (minutes of wall clock). A second app over the
  // same store, its clock one bucket ahead, reads the bucket the live ticks are filling as completed: the route answers
  // from the demo's stored open interest within seconds, and the point is that bucket's end.
  test('the put/call ratio answers with a point from the live open interest of a completed 5-minute bucket', async (t) => {
    const step = PCR_STEP_MS;
    // No route cache: an answer from before the first ticker was stored is not served again for 30 s.
    const app = await testApp(ctx.store, { routeCacheMs: 0 }, { clock: () => Date.now() + step });
    t.after(() => app.close());
    await app.gex.accounts.refresh();
    const inject = async (url: string): Promise<Answer> => {
      const r = await app.inject({ url, headers: { 'x-api-key': key } });
      return { status: r.statusCode, body: r.json() as Answer['body'] };
    };
    const d = await eventually(
      '/v2/options/pcr?symbol=BTCUSDT&days=1',
      (x) => Array.isArray(x['points']) && (x['points'] as unknown[]).length > 0,
      90_000,
      inject,
    );
    const point = (d['points'] as { t: string; ratio: number | null; call_oi: number; put_oi: number }[]).at(-1)!;
    const bucketEnd = Math.ceil(startedAt / step) * step;
    assert.ok(Date.parse(point.t) % step === 0 && Date.parse(point.t) >= bucketEnd, `points sit on 5-minute bucket ends: ${point.t}`);
    assert.ok(point.call_oi > 0 && point.put_oi > 0, `live OI of both types: ${JSON.stringify(point)}`);
    assert.ok(Math.abs((point.ratio ?? 0) - point.put_oi / point.call_oi) < 1e-12);
  });
});
