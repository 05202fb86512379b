import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { MemoryBus } from '#bus/memory-bus.ts';
import { ensureProductTopics } from '#bus/topics.ts';
import { encodeMarketEvent } from '#schemas/event-codec.ts';
import type { OptionTrade } from '#schemas/events.ts';
import { buildApp } from '#query-api/app.ts';
import { apiConfig } from '#query-api/config.ts';
import { SnapshotCache } from '#query-api/gex/snapshot-cache.ts';
import { migratedStore, userWithKey } from '#query-api/testing/harness.ts';
import type { ApiInstance } from '#query-api/types.ts';
import { watchChannels } from './watch.ts';

let t: Awaited<ReturnType<typeof migratedStore>>;
let app: ApiInstance;
let bus: MemoryBus;
let url: string;
let key: string;

const trade = (n: number): OptionTrade => ({
  venue: 'okx',
  symbol: 'ETHUSDT',
  ts: 1_774_000_000_000 + n,
  receivedAt: 1_774_000_000_010 + n,
  id: `okx:${n}`,
  instrument: 'ETH-USD-260327-3000-P',
  strike: 3_000,
  expiry: 1_774_598_400_000,
  optionType: 'put',
  price: 0.02,
  priceCurrency: 'ETH',
  priceUsd: 60,
  size: 10,
  premiumUsd: 600,
  side: 'sell',
  iv: null,
  indexPrice: 3_000,
  underlyingPrice: null,
  tradeId: String(n),
  block: false,
});

before(async () => {
  t = await migratedStore();
  bus = new MemoryBus();
  await ensureProductTopics(bus, 1);
  app = await buildApp({
    store: t.store,
    config: apiConfig({}),
    logger: false,
    snapshots: new SnapshotCache(t.store, { pollMs: 0 }),
    feed: { bus },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `ws://127.0.0.1:${(app.server.address() as AddressInfo).port}/v2/ws`;
  key = await userWithKey(t.store, { userId: 'watcher', plan: 'api_monthly' });
  await app.gex.accounts.refresh();
});
after(async () => {
  await app.close();
  await bus.close();
  await t.dispose();
});

test('gex watch prints the server messages as JSON lines and stops after --count notifications', async () => {
  const lines: string[] = [];
  const r = await watchChannels({
    url,
    key,
    channels: ['tape.ETHUSDT'],
    count: 2,
    write: (l) => {
      lines.push(l);
      if (lines.length === 2)
        void bus.publish(
          'md.option_trades.v1',
          [trade(1), trade(2), trade(3)].map((e) => encodeMarketEvent({ type: 'option_trade', event: e }).message),
        );
    },
  });
  assert.deepEqual(r, { code: 0 });
  assert.equal(lines.length, 4);
  assert.equal(JSON.parse(lines[0] ?? '').result.authenticated, true);
  assert.deepEqual(JSON.parse(lines[1] ?? ''), { jsonrpc: '2.0', id: 1, result: ['tape.ETHUSDT'] });
  const notes = lines.slice(2).map((l) => JSON.parse(l) as { params: { seq: number; data: { trade_id: string; premium_usd: number } } });
  assert.deepEqual(
    notes.map((n) => [n.params.seq, n.params.data.trade_id, n.params.data.premium_usd]),
    [
      [1, '1', 600],
      [2, '2', 600],
    ],
  );
});

test('gex watch exits 1 with the close reason on a bad key, and 1 on an unknown channel', async () => {
  assert.deepEqual(await watchChannels({ url, key: 'gex_live_' + 'z'.repeat(32), channels: ['tape.ETHUSDT'], write: () => undefined }), {
    code: 1,
    closeCode: 4001,
    reason: 'invalid API key',
  });
  const lines: string[] = [];
  assert.deepEqual(await watchChannels({ url, key, channels: ['book.BTCUSDT'], write: (l) => lines.push(l) }), { code: 1 });
  assert.equal(JSON.parse(lines[1] ?? '').error.code, 10001);
});
