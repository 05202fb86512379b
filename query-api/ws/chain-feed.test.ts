import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { consolidateChain } from '#processors/analytics/chain-quotes.ts';
import { withTrades } from '#processors/analytics/chain-trades.ts';
import type { OptionChainRow } from '#processors/snapshots/option-chain.ts';
import { storeChainRows } from '#processors/snapshots/option-chain-record.ts';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { encodeSnapshot } from '#schemas/event-codec.ts';
import { TOPICS } from '#schemas/events.ts';
import { buildApp } from '../app.ts';
import { apiConfig } from '../config.ts';
import { contractJson } from '../options/chain-render.ts';
import { SnapshotCache } from '../gex/snapshot-cache.ts';
import { migratedStore, userWithKey } from '../testing/harness.ts';
import type { ApiInstance } from '../types.ts';
import { connectClient, type FeedMessage, type TestClient } from './testing/client.ts';

const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / 30_000) * 30_000 - 5 * 60_000; // recent (the tables' TTLs use the store clock)
const EXPIRY = Math.floor(T0 / HOUR) * HOUR + 7 * 24 * HOUR;
const iso = (ms: number): string => new Date(ms).toISOString();

function row(t: number, venue: string, strike: number, type: 'call' | 'put', bid: number): OptionChainRow {
  return {
    symbol: 'BTCUSDT',
    computed_at: t,
    spot: 100_000,
    perp_price: null,
    venue,
    instrument: `${venue}-${strike}-${type}`,
    expiry: EXPIRY,
    strike,
    option_type: type,
    t_years: (EXPIRY - t) / (365 * 24 * HOUR),
    forward: 100_000,
    bid_price_usd: bid,
    ask_price_usd: bid + 100,
    bid_size: 1,
    ask_size: 1,
    mark_price_usd: bid + 50,
    last_price_usd: null,
    mark_iv: 0.5,
    bid_iv: null,
    ask_iv: null,
    delta: null,
    gamma: null,
    vega: null,
    theta: null,
    delta_source: 'none',
    gamma_source: 'none',
    vega_source: 'none',
    theta_source: 'none',
    open_interest: 10,
    volume_24h: null,
    dealer_inventory: null,
    ticker_ts: t - 1_000,
  };
}

/**
 * Contract rows as the channel sends them: /v2/options/chain rows without dte, with the trade figures of the chain's
 * trade window read from the store (no option trades are stored here: 0 trades, 0 USD on every contract).
 */
function expectedRows(t: number, rows: readonly OptionChainRow[]): unknown[] {
  return consolidateChain(withTrades(rows, [])).map((c) => {
    const { dte: _d, ...r } = contractJson(c, t, 100_000, false);
    return JSON.parse(JSON.stringify(r)) as unknown;
  });
}

describe('/v2/ws chain.{symbol}: snapshot on subscribe, then changes per stored chain tick (real ws, real store)', () => {
  let t: Awaited<ReturnType<typeof migratedStore>>;
  let app: ApiInstance;
  let bus: MemoryBus;
  let url: string;
  let key: string;
  const open: TestClient[] = [];
  const tick = async (at: number, rows: OptionChainRow[]): Promise<void> => {
    await storeChainRows(t.store, 'BTCUSDT', at, rows);
    const e = encodeSnapshot({ symbol: 'BTCUSDT', kind: 'gex_levels', computedAt: at, payload: '{}', id: `BTCUSDT:gex_levels:${at}` });
    await bus.publish(TOPICS.snapshot, [e]);
  };
  const A = [row(T0, 'deribit', 100_000, 'call', 5_000), row(T0, 'okx', 100_000, 'call', 5_010), row(T0, 'deribit', 90_000, 'put', 800)];

  before(async () => {
    t = await migratedStore();
    bus = new MemoryBus({ clientId: 'ws-chain-test' });
    await ensureProductTopics(bus, 2);
    await storeChainRows(t.store, 'BTCUSDT', T0, A);
    const snapshots = new SnapshotCache(t.store, { pollMs: 0 });
    app = await buildApp({
      store: t.store,
      config: apiConfig({ responseValidation: true }),
      logger: false,
      snapshots,
      feed: { bus, heartbeatMs: 60_000 },
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/v2/ws`;
    key = await userWithKey(t.store, { userId: 'chain', plan: 'bundle_monthly' });
    await app.gex.accounts.refresh();
  });
  after(async () => {
    for (const c of open) c.ws.terminate();
    await app.close();
    await bus.close();
    await t.dispose();
  });

  const subscribed = async (channel: string): Promise<TestClient> => {
    const c = await connectClient(url, key);
    open.push(c);
    await c.next((m) => m.id === null);
    assert.deepEqual((await c.request(1, 'public/subscribe', { channels: [channel] })).result, [channel]);
    return c;
  };
  const data = (m: FeedMessage): Record<string, unknown> => m.params?.data as Record<string, unknown>;

  test('snapshot (current seq) with every consolidated contract; a tick sends only changed rows and removals (seq + 1); venue filter; at most one per second', async () => {
    const c = await subscribed('chain.BTCUSDT');
    const snap = await c.next((m) => m.method === 'subscription');
    assert.equal(snap.params?.seq, 0);
    assert.deepEqual(data(snap), { type: 'snapshot', symbol: 'BTCUSDT', computed_at: iso(T0), spot: 100_000, rows: expectedRows(T0, A) });
    // the ack came first
    assert.equal(c.messages.findIndex((m) => m.id === 1) < c.messages.indexOf(snap), true);

    // B: deribit's call bid moves (its consolidated row changes), the put leaves, a 110k call appears
    const B_T = T0 + 30_000;
    const B = [
      row(B_T, 'deribit', 100_000, 'call', 5_020),
      row(B_T, 'okx', 100_000, 'call', 5_010),
      row(B_T, 'deribit', 110_000, 'call', 2_000),
    ];
    const sentAt = Date.now();
    await tick(B_T, B);
    const ch = await c.next((m) => m.method === 'subscription' && m.params?.seq === 1);
    const d = data(ch);
    assert.equal(d.type, 'changes');
    assert.equal(d.computed_at, iso(B_T));
    const expected = expectedRows(B_T, B) as { strike: number }[];
    assert.deepEqual(d.upserts, [expected[0], expected[1]]); // 100k call (best bid now deribit 5,020) and the new 110k call
    assert.deepEqual(d.removals, [{ expiry: iso(EXPIRY), strike: 90_000, type: 'put' }]);

    // a filtered channel subscribed now gets B as its snapshot
    const okx = await subscribed('chain.BTCUSDT.okx');
    const okxSnap = await okx.next((m) => m.method === 'subscription');
    assert.deepEqual(
      (data(okxSnap).rows as { strike: number; bid_venue: string }[]).map((r) => [r.strike, r.bid_venue]),
      [[100_000, 'okx']],
    );
    assert.deepEqual(data(okxSnap).exchanges_filtered, ['okx']);

    // C right after B: an unchanged chain is a changes message with nothing in it, sent no sooner than 1 s after B
    const C_T = B_T + 30_000;
    await tick(
      C_T,
      B.map((r) => ({ ...r, computed_at: C_T })),
    );
    const ch2 = await c.next((m) => m.method === 'subscription' && m.params?.seq === 2, 5_000);
    assert.ok(Date.now() - sentAt >= 1_000, 'throttled to one changes message per second');
    assert.deepEqual([data(ch2).upserts, data(ch2).removals, data(ch2).computed_at], [[], [], iso(C_T)]);
    assert.equal(c.notifications('chain.BTCUSDT').length, 3);
  });
});
