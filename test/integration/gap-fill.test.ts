/**
 * Gap fill on reconnect against the sandbox (real Deribit protocol over WebSocket and REST): trades the venue
 * printed while the connection was down are fetched from get_last_trades_by_currency_and_time after the reconnect;
 * the published option trades equal everything the sandbox generated, each once (live, gap and overlap).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { MarketEvent } from '#schemas/events.ts';
import { createDeribitConnector } from '#ingest/venues/deribit/index.ts';
import { createOkxConnector } from '#ingest/venues/okx/index.ts';
import { createBybitConnector } from '#ingest/venues/bybit/index.ts';
import { createBinanceConnector } from '#ingest/venues/binance/index.ts';
import type { VenueConnectorSpec } from '#ingest/connector/types.ts';
import type { SandboxVenue } from '#sandbox/market/venues.ts';
import { connectorUrlsFor } from '#sandbox/connector-urls.ts';
import { startSandbox, type Sandbox } from '#sandbox/sandbox.ts';
import { waitFor } from '#ingest/transport/testing/ws-test-server.ts';
import { CapturingPublisher } from '#ingest/pipeline/testing/capturing-publisher.ts';
import { startVenue, type RunningVenue } from '#ingest/pipeline/venue-runner.ts';
import { RecentIds } from '#ingest/pipeline/recent-ids.ts';

const optionTradeIds = (events: readonly MarketEvent[]): string[] =>
  events.flatMap((e) => (e.type === 'option_trade' ? [e.event.tradeId] : []));

type Connector = (urls: ReturnType<typeof connectorUrlsFor>) => VenueConnectorSpec;

/**
 * A manual-clock sandbox of one venue and its connector (fast reconnects), publishing into `pub`. REST at 1,000
 * requests/s: Binance's option fill asks once per listed option (~300 here).
 */
async function startPair(
  venueName: SandboxVenue,
  connector: Connector,
  seed: number,
  pub: CapturingPublisher,
  socketEvents: string[],
): Promise<{ sb: Sandbox; venue: RunningVenue }> {
  const sb = await startSandbox({ seed, venues: [venueName], symbols: ['BTCUSDT'], speed: 0, startMs: Date.now() });
  const urls = sb.urls[venueName];
  assert.ok(urls !== undefined);
  const venue = await startVenue({
    spec: connector(connectorUrlsFor(venueName, urls)),
    symbols: ['BTCUSDT'],
    publisher: pub,
    reconnectBackoff: { baseMs: 50, maxMs: 200 },
    restPerSecond: 1_000,
    onSocketEvent: (c, e) => socketEvents.push(`${c}:${e.type}`),
  });
  return { sb, venue };
}

/**
 * One venue against its sandbox server: `gapCount` trades printed during the outage (within the venue's REST
 * look-back) must be published after the reconnect, and every generated trade exactly once.
 */
function gapFillCase(venueName: SandboxVenue, connector: Connector, gapCount: number, lookBack: string, tradeConnection = 'public'): void {
  describe(`gap fill after a reconnect (${venueName}, sandbox; look-back ${lookBack})`, () => {
    let sb: Sandbox;
    let venue: RunningVenue;
    const pub = new CapturingPublisher();
    const socketEvents: string[] = [];

    before(async () => {
      ({ sb, venue } = await startPair(venueName, connector, 11, pub, socketEvents));
      await waitFor(() => socketEvents.includes(`${tradeConnection}:open`), 10_000);
    });
    after(async () => {
      await venue?.stop();
      await sb?.stop();
    });

    test(`${gapCount} trades printed during the outage are recovered from REST; every generated trade published exactly once`, async () => {
      // Subscribed: one trade every 100 ms until one arrives (the socket opens before the subscription is in).
      for (let i = 0; i < 100 && optionTradeIds(pub.events).length === 0; i++) {
        sb.emitTrades(venueName, 1);
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 200));
      // Trades of the warm-up that reached no subscription are not part of the comparison.
      const delivered0 = new Set(sb.ledger.ids(venueName, 'option_trade'));
      const unsubscribed = new Set(sb.generated.ids(venueName, 'option_trade').filter((id) => !delivered0.has(id)));
      const warm = delivered0.size;
      // Live: 40 trades reach the socket.
      const live = sb.emitTrades(venueName, 40);
      await waitFor(() => optionTradeIds(pub.events).length >= warm + 40, 10_000);
      // Outage: the venue drops the connection, then prints trades nobody receives.
      const opensBefore = socketEvents.filter((e) => e === `${tradeConnection}:open`).length;
      assert.ok(sb.faults.disconnect(venueName) > 0);
      const gap = sb.emitTrades(venueName, gapCount);
      const gapIds = new Set(optionTradeIds(gap));
      assert.equal(gapIds.size, gapCount);
      const delivered = new Set(sb.ledger.ids(venueName, 'option_trade'));
      assert.equal([...gapIds].filter((id) => delivered.has(id)).length, 0, 'the gap trades reached no socket');
      // Reconnect, resubscribe, gap fill; then 60 more live trades.
      await waitFor(() => socketEvents.filter((e) => e === `${tradeConnection}:open`).length > opensBefore, 10_000);
      await waitFor(() => optionTradeIds(pub.events).filter((id) => gapIds.has(id)).length === gapCount, 15_000);
      const later = sb.emitTrades(venueName, 60);
      await waitFor(() => optionTradeIds(pub.events).length >= warm + 100 + gapCount, 10_000);

      const published = optionTradeIds(pub.events);
      const all = sb.generated.ids(venueName, 'option_trade');
      const expected = all.filter((id) => !unsubscribed.has(id));
      assert.equal(expected.length, warm + 100 + gapCount);
      assert.equal(new Set(published).size, published.length, 'no trade published twice');
      // Every trade from the subscription on is published; warm-up prints from before it may be too (within the
      // gap fill's 30 s margin), never anything the venue did not print.
      const pubSet = new Set(published);
      assert.deepEqual(
        expected.filter((id) => !pubSet.has(id)),
        [],
        'nothing lost',
      );
      const allSet = new Set(all);
      assert.deepEqual(
        published.filter((id) => !allSet.has(id)),
        [],
        'nothing invented',
      );
      assert.ok(published.filter((id) => unsubscribed.has(id)).length <= unsubscribed.size);
      assert.equal(optionTradeIds(live).length + optionTradeIds(later).length, 100);
      assert.deepEqual(pub.letters, []);
      // The recovered trades carry the same fields as live ones (the REST trade shape maps like the WS one).
      const g = pub.events.find((e) => e.type === 'option_trade' && gapIds.has(e.event.tradeId));
      assert.ok(g !== undefined && g.type === 'option_trade' && g.event.priceUsd > 0 && g.event.strike > 0 && g.event.size > 0);
    });
  });
}

gapFillCase('deribit', (u) => createDeribitConnector(u), 300, 'time range, paginated by 1,000');
gapFillCase('okx', (u) => createOkxConnector(u), 90, 'latest 100 per family');
gapFillCase('bybit', (u) => createBybitConnector(u), 400, 'latest 1,000 per coin', 'option-0');
// Unpaced here (the production pace is 1 request/s: ~10 min for a real chain).
gapFillCase(
  'binance',
  (u) => createBinanceConnector(u, { optionFillPaceMs: 0 }),
  600,
  'latest 500 per option, one request per listed option',
  'public-0',
);

const linearTradeIds = (events: readonly MarketEvent[], type: 'perp_trade' | 'spot_trade'): string[] =>
  events.flatMap((e) => (e.type === type ? [e.event.tradeId] : []));

/**
 * Perp and spot trades of one venue against its sandbox server: the venue drops every connection, prints `gap.perp`
 * perp and `gap.spot` spot trades nobody receives (within its REST look-back), the connector reconnects; every perp
 * and spot trade from the subscription on is published exactly once.
 */
function linearGapFillCase(
  venueName: SandboxVenue,
  connector: Connector,
  gap: { perp: number; spot: number },
  lookBack: string,
  connections: readonly string[],
): void {
  describe(`perp and spot gap fill after a reconnect (${venueName}, sandbox; look-back ${lookBack})`, () => {
    let sb: Sandbox;
    let venue: RunningVenue;
    const pub = new CapturingPublisher();
    const socketEvents: string[] = [];
    const opens = (c: string): number => socketEvents.filter((e) => e === `${c}:open`).length;

    before(async () => {
      ({ sb, venue } = await startPair(venueName, connector, 13, pub, socketEvents));
      await waitFor(() => connections.every((c) => opens(c) > 0), 10_000);
    });
    after(async () => {
      await venue?.stop();
      await sb?.stop();
    });

    test(`${gap.perp} perp and ${gap.spot} spot trades printed during the outage are recovered from REST, each once`, async () => {
      const types = ['perp_trade', 'spot_trade'] as const;
      const kinds = { perp_trade: 'perp', spot_trade: 'spot' } as const;
      // Subscribed: one trade of each kind every 100 ms until one of each arrives.
      for (let i = 0; i < 100 && types.some((t) => linearTradeIds(pub.events, t).length === 0); i++) {
        for (const t of types) sb.emitLinearTrades(venueName, 1, kinds[t]);
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 200));
      const unsubscribed = Object.fromEntries(
        types.map((t) => {
          const delivered = new Set(sb.ledger.ids(venueName, t));
          return [t, new Set(sb.generated.ids(venueName, t).filter((id) => !delivered.has(id)))];
        }),
      ) as Record<(typeof types)[number], Set<string>>;
      for (const t of types) sb.emitLinearTrades(venueName, 20, kinds[t]);
      await waitFor(() => types.every((t) => linearTradeIds(pub.events, t).length >= sb.ledger.ids(venueName, t).length), 10_000);

      const opensBefore = connections.map(opens);
      assert.ok(sb.faults.disconnect(venueName) > 0);
      const gapIds = {
        perp_trade: new Set(linearTradeIds(sb.emitLinearTrades(venueName, gap.perp, 'perp'), 'perp_trade')),
        spot_trade: new Set(linearTradeIds(sb.emitLinearTrades(venueName, gap.spot, 'spot'), 'spot_trade')),
      };
      for (const t of types) {
        const delivered = new Set(sb.ledger.ids(venueName, t));
        assert.equal([...gapIds[t]].filter((id) => delivered.has(id)).length, 0, `the gap's ${t}s reached no socket`);
      }
      await waitFor(() => connections.every((c, k) => opens(c) > (opensBefore[k] ?? 0)), 10_000);
      await waitFor(
        () => types.every((t) => linearTradeIds(pub.events, t).filter((id) => gapIds[t].has(id)).length === gapIds[t].size),
        15_000,
      );
      for (const t of types) sb.emitLinearTrades(venueName, 20, kinds[t]);
      await waitFor(
        () => types.every((t) => linearTradeIds(pub.events, t).length >= sb.generated.ids(venueName, t).length - unsubscribed[t].size),
        10_000,
      );

      for (const t of types) {
        const published = linearTradeIds(pub.events, t);
        assert.equal(new Set(published).size, published.length, `no ${t} published twice`);
        const all = sb.generated.ids(venueName, t);
        const pubSet = new Set(published);
        assert.deepEqual(
          all.filter((id) => !unsubscribed[t].has(id) && !pubSet.has(id)),
          [],
          `no ${t} lost`,
        );
        const allSet = new Set(all);
        assert.deepEqual(
          published.filter((id) => !allSet.has(id)),
          [],
          `no ${t} invented`,
        );
        assert.ok(gapIds[t].size === gap[kinds[t]]);
      }
      assert.deepEqual(pub.letters, []);
      // A recovered trade carries the live fields: price, size, side, and the market of its kind.
      const g = pub.events.find((e) => e.type === 'spot_trade' && gapIds.spot_trade.has(e.event.tradeId));
      assert.ok(g !== undefined && g.type === 'spot_trade' && g.event.market === 'spot' && g.event.price > 0 && g.event.size > 0);
      const p = pub.events.find((e) => e.type === 'perp_trade' && gapIds.perp_trade.has(e.event.tradeId));
      assert.ok(p !== undefined && p.type === 'perp_trade' && p.event.market === 'perp' && p.event.price > 0 && p.event.size > 0);
    });
  });
}

linearGapFillCase(
  'binance',
  (u) => createBinanceConnector(u, { optionFillPaceMs: 0 }),
  { perp: 2_500, spot: 300 },
  'perp: time range, paginated by 1,000; spot: latest 1,000',
  ['market-0', 'spot-0'],
);
linearGapFillCase('bybit', (u) => createBybitConnector(u), { perp: 400, spot: 40 }, 'perp: latest 1,000; spot: latest 60', [
  'linear',
  'spot',
]);
linearGapFillCase('okx', (u) => createOkxConnector(u), { perp: 300, spot: 200 }, 'latest 500 per instrument', ['public']);

describe('RecentIds', () => {
  const trade = (id: string): MarketEvent => ({
    type: 'perp_trade',
    event: {
      venue: 'okx',
      symbol: 'BTCUSDT',
      ts: 1,
      receivedAt: 1,
      id,
      market: 'perp',
      instrument: 'BTC-USDT-SWAP',
      price: 1,
      size: 1,
      side: 'buy',
      tradeId: id,
    },
  });
  test('admits each trade id once, passes other events, forgets the oldest beyond capacity', () => {
    const r = new RecentIds(3);
    const idx: MarketEvent = {
      type: 'index',
      event: { venue: 'okx', symbol: 'BTCUSDT', ts: 1, receivedAt: 1, id: 'i', kind: 'index', name: 'BTC-USD', value: 1 },
    };
    assert.deepEqual(r.admit([trade('a'), trade('b'), trade('a'), idx, idx]), { fresh: [trade('a'), trade('b'), idx, idx], duplicates: 1 });
    assert.equal(r.admit([trade('c'), trade('d')]).duplicates, 0);
    assert.equal(r.size, 3);
    assert.equal(r.admit([trade('a')]).duplicates, 0, "'a' was forgotten (capacity 3)");
    assert.equal(r.admit([trade('d')]).duplicates, 1);
  });
  test('after many wraps of its window it remembers exactly the newest `capacity` ids', () => {
    const r = new RecentIds(4);
    for (let i = 0; i < 1003; i++) assert.equal(r.admit([trade(`t${i}`)]).duplicates, 0);
    assert.equal(r.size, 4);
    // t999..t1002 are remembered, t998 was forgotten (and is remembered again, forgetting t999).
    assert.equal(r.admit([trade('t1002'), trade('t1001'), trade('t1000'), trade('t999')]).duplicates, 4);
    assert.equal(r.admit([trade('t998')]).duplicates, 0);
    assert.equal(r.admit([trade('t999')]).duplicates, 0);
    assert.equal(r.size, 4);
    assert.throws(() => new RecentIds(0), RangeError);
  });
  test('a spot trade whose id equals a perp trade id is not a duplicate (Binance and Bybit name both BTCUSDT)', () => {
    const r = new RecentIds();
    const perp = trade('binance:BTCUSDT:7');
    const spot: MarketEvent = {
      type: 'spot_trade',
      event: { ...perp.event, market: 'spot' } as Extract<MarketEvent, { type: 'spot_trade' }>['event'],
    };
    assert.deepEqual(r.admit([perp, spot, perp, spot]), { fresh: [perp, spot], duplicates: 2 });
  });
});
