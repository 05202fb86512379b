/**
 * Sandbox end to end for the WebSocket feed: `gex demo`'s roles (sandbox market -> connectors -> bus -> raw
 * writer + snapshot processor -> API) in one process, a short snapshot interval; a real `ws` client receives
 * a sandbox option trade on tape.BTCUSDT, a levels snapshot at the tick on levels.BTCUSDT and the consolidated
 * chain on chain.BTCUSDT.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '#platform/settings.ts';
import { createRuntimeContext, type RuntimeContext } from '#app/runtime/context.ts';
import { startRoles } from '#app/cli/commands/roles.ts';
import { connectClient, type TestClient } from '#query-api/ws/testing/client.ts';

const INTERVAL_MS = 3_000;

describe('sandbox -> bus -> /v2/ws', () => {
  let dir: string;
  let ctx: RuntimeContext;
  let client: TestClient;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gex-ws-e2e-'));
    const config = loadConfig({
      DATA_DIR: dir,
      PORT: '0',
      ADMIN_PORT: '0',
      HOST: '127.0.0.1',
      SYMBOLS: 'BTCUSDT',
      VENUES: 'deribit',
      SNAPSHOT_INTERVAL_MS: String(INTERVAL_MS),
      SANDBOX: 'true',
    });
    ctx = await createRuntimeContext(config, { metrics: false });
    const { api } = await startRoles(ctx, new Set(['ingest', 'processors', 'query-api']), true);
    assert.ok(api !== null);
    await api.app.gex.repository.upsertUser({ userId: 'e2e', plan: 'bundle_monthly', status: 'active', evaluation: false });
    const { key } = await api.app.gex.repository.createKey('e2e', 'gex');
    await api.app.gex.accounts.refresh();
    client = await connectClient(`${api.url.replace('http', 'ws')}/v2/ws`, key);
    const ack = await client.request(1, 'public/subscribe', {
      channels: ['tape.BTCUSDT', 'levels.BTCUSDT', 'levels.BTCUSDT.deribit', 'chain.BTCUSDT'],
    });
    assert.deepEqual(ack.result, ['tape.BTCUSDT', 'levels.BTCUSDT', 'levels.BTCUSDT.deribit', 'chain.BTCUSDT']);
  });
  after(async () => {
    client.ws.terminate();
    await ctx.shutdown();
    await rm(dir, { recursive: true, force: true });
  });

  test('a sandbox option trade reaches the tape subscriber in the /v2/tape row shape', async () => {
    const m = await client.next((x) => x.params?.channel === 'tape.BTCUSDT', 30_000);
    const row = m.params?.data as Record<string, unknown>;
    assert.equal(row['venue'], 'deribit');
    assert.equal(row['symbol'], 'BTCUSDT');
    assert.match(String(row['instrument']), /^BTC-/);
    assert.ok(['call', 'put'].includes(String(row['type'])));
    assert.ok(['buy', 'sell'].includes(String(row['side'])));
    assert.ok(
      Math.abs(Number(row['premium_usd']) - Number(row['price_usd']) * Number(row['size'])) < 1e-6 * Number(row['premium_usd']) + 1e-9,
    );
    assert.equal(m.params?.seq, 1);
  });

  test('a levels snapshot arrives at the tick, flow model with the std fallback, on every venue filter', async () => {
    const all = await client.next((x) => x.params?.channel === 'levels.BTCUSDT', 60_000);
    const data = all.params?.data as {
      computed_at: string;
      positioning: { requested: string; served: string };
      levels: { positioning: string; all_expiry: { hvl: unknown } };
    };
    assert.equal(Date.parse(data.computed_at) % INTERVAL_MS, 0, 'computed_at is a tick of the snapshot interval');
    assert.equal(data.positioning.requested, 'flow');
    assert.ok(['flow', 'std'].includes(data.positioning.served));
    assert.equal(data.levels.positioning, data.positioning.served);
    assert.ok('hvl' in data.levels.all_expiry);
    const deribit = await client.next(
      (x) => x.params?.channel === 'levels.BTCUSDT.deribit' && (x.params.data as { computed_at: string }).computed_at === data.computed_at,
      10_000,
    );
    assert.deepEqual((deribit.params?.data as { exchanges_filtered: string[] }).exchanges_filtered, ['deribit']);
  });

  test('the consolidated chain arrives on chain.BTCUSDT: every contract of the stored tick, then changes at the next tick', async () => {
    const first = await client.next((x) => x.params?.channel === 'chain.BTCUSDT', 60_000);
    const d = first.params?.data as {
      type: string;
      computed_at: string;
      rows?: { strike: number; mark_iv: number | null }[];
      upserts?: { strike: number; mark_iv: number | null }[];
    };
    const rows = d.type === 'snapshot' ? d.rows : d.upserts;
    assert.ok(Array.isArray(rows) && rows.length > 0, 'contracts in the first chain message');
    assert.ok(rows.some((r) => (r.mark_iv ?? 0) > 0));
    const next = await client.next(
      (x) => x.params?.channel === 'chain.BTCUSDT' && (x.params.data as { computed_at: string }).computed_at > d.computed_at,
      60_000,
    );
    assert.equal((next.params?.data as { type: string }).type, 'changes');
    assert.equal(next.params?.seq, (first.params?.seq ?? 0) + 1);
  });
});
