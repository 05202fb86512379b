/**
 * Sandbox end to end for the greek-exposure and stress-history routes: `gex demo`'s roles (sandbox market ->
 * connectors -> bus -> raw writer + snapshot processor -> API) in one process, a short snapshot interval; after
 * the first ticks every route answers 200 with non-empty data.
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

const INTERVAL_MS = 3_000;

describe('sandbox -> snapshots -> /v2/options/greeks, /v2/gex/stress-history', () => {
  let dir: string;
  let ctx: RuntimeContext;
  let base: string;
  let key: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gex-greeks-e2e-'));
    const config = loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      ADMIN_PORT: '0',
      HOST: '127.0.0.1',
      SYMBOLS: 'BTCUSDT',
      VENUES: 'deribit,okx',
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

  const get = async (path: string): Promise<{ status: number; body: { data?: Record<string, unknown> } }> => {
    const r = await fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
    return { status: r.status, body: (await r.json()) as { data?: Record<string, unknown> } };
  };

  /** Poll until the route answers 200 with `ok(data)` (the first ticks must have been stored). */
  async function eventually(path: string, ok: (d: Record<string, unknown>) => boolean, ms = 90_000): Promise<Record<string, unknown>> {
    const end = Date.now() + ms;
    let last = '';
    while (Date.now() < end) {
      const r = await get(path);
      if (r.status === 200 && r.body.data !== undefined && ok(r.body.data)) return r.body.data;
      last = `${r.status} ${JSON.stringify(r.body).slice(0, 300)}`;
      await sleep(500);
    }
    throw new Error(`${path}: no non-empty answer within ${ms} ms; last ${last}`);
  }

  test('every greek route and the stress history answer with non-empty data after the first ticks', async () => {
    const nonEmpty = (field: string) => (d: Record<string, unknown>) => Array.isArray(d[field]) && (d[field] as unknown[]).length > 0;
    for (const greek of ['delta', 'gamma', 'vega', 'theta', 'vanna', 'charm']) {
      const d = await eventually(`/v2/options/greeks/${greek}?symbol=BTCUSDT`, nonEmpty('by_strike'));
      assert.ok(Number.isFinite(d['total']), greek);
    }
    await eventually('/v2/options/greeks/surfaces/vanna?symbol=BTCUSDT&include=exchange_breakdown', nonEmpty('expiries'));
    const grid = await eventually('/v2/options/greeks/3d/surface?symbol=BTCUSDT&metric=iv', nonEmpty('values'));
    assert.ok((grid['values'] as (number | null)[][]).flat().some((v) => v !== null && v > 0));
    // The first ticks after a start can have zero GEX (a venue's tickers or OI not in yet): wait for a point with some.
    const withGex = (d: Record<string, unknown>): boolean =>
      ((d['points'] as { gex: number[] }[] | undefined) ?? []).some((p) => p.gex.some((v) => v !== 0));
    const stress = await eventually('/v2/gex/stress-history?symbol=BTCUSDT&interval=30s', withGex);
    const points = stress['points'] as { gex: number[] }[];
    assert.ok(points.every((p) => p.gex.length === 9));
  });

  test('the consolidated chain routes answer with non-empty data: chain (book, IVs, greeks), venue book, OI by expiry; max-pain and heatmap as_of', async () => {
    const nonEmpty = (field: string) => (d: Record<string, unknown>) => Array.isArray(d[field]) && (d[field] as unknown[]).length > 0;
    type ChainRow = {
      mark_iv: number | null;
      delta: number | null;
      open_interest: number;
      venues: string[];
      bid_usd: number | null;
      ask_usd: number | null;
    };
    // The first ticks after a start can hold one venue only (the other's tickers or OI not in yet): wait for both.
    const complete = (d: Record<string, unknown>): boolean => {
      const rs = (d['rows'] as ChainRow[] | undefined) ?? [];
      return (
        new Set(rs.flatMap((r) => r.venues)).size >= 2 &&
        rs.some((r) => (r.mark_iv ?? 0) > 0 && r.delta !== null && r.open_interest > 0) &&
        rs.some((r) => (r.bid_usd ?? 0) > 0 && r.ask_usd !== null)
      );
    };
    const chain = await eventually('/v2/options/chain?symbol=BTCUSDT&include=exchange_breakdown', complete);
    const rows = chain['rows'] as ChainRow[];
    assert.ok(rows.some((r) => (r.mark_iv ?? 0) > 0 && r.delta !== null && r.open_interest > 0));
    assert.ok(rows.some((r) => r.bid_usd !== null && r.ask_usd !== null && r.bid_usd > 0));
    assert.ok(new Set(rows.flatMap((r) => r.venues)).size >= 2, 'more than one venue consolidated');
    const ladder = await eventually('/v2/options/chain?symbol=BTCUSDT&layout=ladder&moneyness=0.2', nonEmpty('ladder'));
    assert.ok((ladder['ladder'] as { call: unknown; put: unknown }[]).some((l) => l.call !== null && l.put !== null));
    const book = await eventually('/v2/options/venue-book?symbol=BTCUSDT&min_venues=2', nonEmpty('rows'));
    assert.ok((book['rows'] as { venues: unknown[] }[]).every((r) => r.venues.length >= 2));
    const oi = await eventually('/v2/options/oi/by-expiry?symbol=BTCUSDT', nonEmpty('expiries'));
    assert.ok((oi['totals'] as { total_oi: number }).total_oi > 0);
    const smile = await eventually('/v2/options/iv/smile?symbol=BTCUSDT', nonEmpty('expiries'));
    assert.ok(
      (smile['expiries'] as { atm_iv: number | null; points: unknown[] }[]).some((e) => (e.atm_iv ?? 0) > 0 && e.points.length > 0),
    );
    const term = await eventually('/v2/options/iv/term-structure?symbol=BTCUSDT', nonEmpty('expiries'));
    assert.ok((term['constant_maturity'] as { atm_iv: number | null }[]).some((p) => (p.atm_iv ?? 0) > 0));
    const now = new Date().toISOString();
    await eventually(`/v2/gex/max-pain?symbol=BTCUSDT&as_of=${now}`, nonEmpty('expiries'));
    await eventually(`/v2/gex/strike-expiry-heatmap?symbol=BTCUSDT&as_of=${now}`, nonEmpty('strikes'));
  });
});
