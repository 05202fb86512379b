import { test } from 'node:test';
import assert from 'node:assert/strict';
import { migrate } from '#clickhouse/migrate.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import type { MarketEvent, OptionTicker } from '#schemas/events.ts';
import { buildChain } from './chain.ts';
import { loadStateAsOf } from './rebuild.ts';
import { MarketState } from './state.ts';
import { freshAt, mergeTicker } from './ticker-merge.ts';
import type { TickerState } from './state.ts';
import { indexPrice, ticker } from './testing/events.ts';
import { storeEvents } from './testing/store-events.ts';

const T = Date.UTC(2026, 10, 24, 12);
const EXPIRY = T + 7 * 86_400_000;
const OPTS = { tickerFreshnessMs: 300_000, priceFreshnessMs: 60_000 };

/** OKX-style rows of one option: opt-summary (IV, greeks, forward), open-interest (OI), tickers (book). */
function partialRows(base = T): OptionTicker[] {
  const row = (ts: number, fields: Partial<OptionTicker>, family: string): OptionTicker => ({
    ...ticker({
      venue: 'okx',
      instrument: 'BTC-USD-X-100000-C',
      strike: 100_000,
      expiry: EXPIRY,
      type: 'call',
      oi: null,
      iv: null,
      forward: null,
      ts,
    }),
    id: `okx:${family}:${ts}`,
    ...fields,
  });
  return [
    row(base - 90_000, { markIv: 0.5, delta: 0.52, underlyingPrice: 100_200 }, 'opt_summary'),
    row(base - 60_000, { openInterest: 120 }, 'open_interest'),
    row(base - 30_000, { bidPriceUsd: 5_000, askPriceUsd: 5_100, bidSize: 2, askSize: 3 }, 'tickers'),
    row(base - 20_000, { markIv: 0.51, delta: 0.53, underlyingPrice: 100_250 }, 'opt_summary'),
  ];
}

const stateOf = (rows: readonly OptionTicker[]): TickerState | undefined => {
  const s = new MarketState();
  for (const e of rows) s.apply({ type: 'option_ticker', event: e });
  return s.view('BTCUSDT').tickers[0];
};

test('partial rows merge per field group: the newest IV row, the OI row and the book row all count; an older row never overwrites', () => {
  const t = stateOf(partialRows());
  assert.deepEqual(
    [t?.markIv, t?.underlyingPrice, t?.openInterest, t?.quote?.delta, t?.quote?.bidPriceUsd, t?.quote?.askSize, t?.ts],
    [0.51, 100_250, 120, 0.53, 5_000, 3, T - 20_000],
  );
  assert.deepEqual(t?.groupTimes, { pricing: T - 20_000, oi: T - 60_000, book: T - 30_000, index: null });
  // the same rows in reverse order: the same state
  assert.deepEqual(stateOf([...partialRows()].reverse()), t);
  // an OI-only row no longer empties the IV (the bug a newest-row state had)
  const before = mergeTicker(undefined, { ...(t as TickerState), groupTimes: undefined });
  assert.equal(before.markIv, 0.51);
});

test('a whole row replaces every group it carries, nulls included (an emptied pricing group is carried by its forward)', () => {
  const full = mergeTicker(undefined, {
    venue: 'deribit',
    instrument: 'I',
    ts: T,
    strike: 1,
    expiry: EXPIRY,
    type: 'call',
    markIv: 0.5,
    openInterest: 10,
    underlyingPrice: 100,
    indexPrice: 99,
  });
  const next = mergeTicker(full, {
    venue: 'deribit',
    instrument: 'I',
    ts: T + 1,
    strike: 1,
    expiry: EXPIRY,
    type: 'call',
    markIv: null,
    openInterest: 11,
    underlyingPrice: 101,
    indexPrice: 98,
  });
  assert.deepEqual([next.markIv, next.openInterest, next.underlyingPrice, next.indexPrice], [null, 11, 101, 98]);
});

test('freshAt: a group older than the window is absent at the tick (a venue that stopped one channel)', () => {
  const t = stateOf(partialRows()) as TickerState;
  const later = T + 250_000; // OI (T − 60 s) is 310 s old with a 300 s window; pricing (T − 20 s) 270 s
  const f = freshAt(t, later, 300_000);
  assert.deepEqual([f.markIv, f.openInterest, f.quote?.bidPriceUsd, f.quote?.delta], [0.51, null, 5_000, 0.53]);
  const now = freshAt(t, T, 300_000);
  assert.deepEqual([now.markIv, now.openInterest, now.quote?.bidPriceUsd, now.indexPrice], [0.51, 120, 5_000, null]);
});

test('rebuild from the raw tables merges the same way; the chain has the IV and the OI of the venue', async () => {
  const { store, dispose } = await openTempStore();
  try {
    await migrate(store);
    const events: MarketEvent[] = [
      ...partialRows().map((e) => ({ type: 'option_ticker' as const, event: e })),
      { type: 'index', event: indexPrice('okx', 100_000, T - 5_000) },
    ];
    await storeEvents(store, events);
    const rebuilt = (await loadStateAsOf(store, 'BTCUSDT', T, OPTS)).view('BTCUSDT').tickers[0];
    const live = stateOf(partialRows());
    assert.deepEqual(rebuilt, live);
    const state = new MarketState();
    for (const e of events) state.apply(e);
    const chain = buildChain('BTCUSDT', state.view('BTCUSDT'), T, OPTS);
    assert.equal(chain.kind, 'chain');
    if (chain.kind !== 'chain') return;
    assert.deepEqual(
      chain.chain.instruments.map((i) => [i.markIv, i.openInterest, i.forward]),
      [[0.51, 120, 100_250]],
    );
  } finally {
    await dispose();
  }
});
