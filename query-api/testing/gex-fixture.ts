/**
 * GEX test data produced by the real processor code: the hand-built BTCUSDT market of the snapshot tests
 * (processors/snapshots/testing/chain-fixture.ts) run through runCycle at three ticks A, B, C (spot moves
 * between them), a SOLUSDT snapshot at C written through the processor's write path from a hand-built chain,
 * and perpetual/spot trades before A for the candles. Every number the routes serve can be recomputed with
 * the pure engine from `chainAt` / `solChain`.
 */
import type { Store } from '#clickhouse/store.ts';
import type { ChainInstrument, ChainSnapshot } from '#processors/analytics/types.ts';
import { runCycle } from '#processors/snapshots/cycle.ts';
import { rowsFromChain } from '#processors/snapshots/compute-step.ts';
import { gammaFlowPoints, levelsOf } from '#processors/snapshots/levels-step.ts';
import { MarketState } from '#processors/snapshots/state.ts';
import { E2, expectedChain, marketEvents, TICK, tradeEvents } from '#processors/snapshots/testing/chain-fixture.ts';
import { indexPrice } from '#processors/snapshots/testing/events.ts';
import { storeEvents } from '#processors/snapshots/testing/store-events.ts';
import { storeLevelsAndFlow, storeSnapshotRows } from '#processors/snapshots/write-step.ts';
import { storeStressRows } from '#processors/snapshots/stress-record.ts';
import type { LinearTrade, MarketEvent } from '#schemas/events.ts';

export const A = TICK;
export const B = TICK + 30_000;
export const C = TICK + 60_000;
export const SPOTS = { A: 100_050, B: 100_550, C: 99_550 } as const;

/** One linear trade (perp or spot) for the candle tests. */
function linear(market: 'perp' | 'spot', venue: 'binance' | 'okx', price: number, size: number, ts: number, id: string): MarketEvent {
  const event: LinearTrade = {
    venue,
    symbol: 'BTCUSDT',
    ts,
    receivedAt: ts + 2,
    id: `${venue}:${market}:${id}`,
    market,
    instrument: market === 'perp' ? 'BTCUSDT-PERP' : 'BTC-USDT',
    price,
    size,
    side: 'buy',
    tradeId: id,
  };
  return { type: market === 'perp' ? 'perp_trade' : 'spot_trade', event };
}

/**
 * Candle trades: minute M1 = A − 3 min (perp 100,000 / 100,200 / 99,900 / 100,100 and a spot print at
 * 100,050), minute M2 = A − 1 min (one perp trade), and one perp trade inside the minute of C (not closed
 * at C: never served for C), plus one trade 5 h before A (outside the 4 h window).
 */
export const M1 = A - 180_000;
export const M2 = A - 60_000;
export function candleEvents(): MarketEvent[] {
  return [
    linear('perp', 'binance', 100_000, 1, M1 + 1_000, 'p1'),
    linear('perp', 'okx', 100_200, 2, M1 + 10_000, 'p2'),
    linear('spot', 'binance', 100_050, 0.5, M1 + 20_000, 's1'),
    linear('perp', 'binance', 99_900, 1.5, M1 + 30_000, 'p3'),
    linear('perp', 'okx', 100_100, 1, M1 + 50_000, 'p4'),
    linear('perp', 'binance', 100_300, 3, M2 + 5_000, 'p5'),
    linear('perp', 'binance', 101_000, 9, C + 1_000, 'p6'),
    linear('perp', 'binance', 90_000, 9, A - 5 * 3600_000, 'p7'),
  ];
}

/** The BTCUSDT chain the processor sees at a tick (inventory as of the tick, spot of the tick). */
export function chainAt(tick: number): ChainSnapshot {
  const base = expectedChain();
  if (tick === A) return base;
  // After A: the deribit E2 100k call's +7 taker buy at TICK + 1 s moves its dealer inventory to −27; the perp
  // marks (TICK − 2 s / − 4 s) are older than the 60 s price window at C.
  const instruments: ChainInstrument[] = base.instruments.map((i) =>
    i.venue === 'deribit' && i.expiry === E2 && i.strike === 100_000 && i.type === 'call' ? { ...i, dealerInventory: -27 } : i,
  );
  return { ...base, now: tick, spot: tick === B ? SPOTS.B : SPOTS.C, perpPrice: tick === B ? base.perpPrice : null, instruments };
}

/** SOLUSDT at C: std only (flow is not produced for SOL), two venues. */
export function solChain(): ChainSnapshot {
  const e = C + 3 * 86_400_000;
  const i = (venue: 'deribit' | 'bybit', strike: number, type: 'call' | 'put', oi: number, iv: number): ChainInstrument => ({
    venue,
    strike,
    expiry: e,
    type,
    openInterest: oi,
    markIv: iv,
    forward: 150.5,
    dealerInventory: -oi / 2,
  });
  return {
    symbol: 'SOLUSDT',
    now: C,
    spot: 150,
    perpPrice: 150.2,
    instruments: [
      i('deribit', 140, 'put', 9_000, 0.8),
      i('deribit', 150, 'call', 12_000, 0.7),
      i('deribit', 160, 'call', 7_000, 0.75),
      i('bybit', 150, 'put', 5_000, 0.72),
      i('bybit', 145, 'put', 4_000, 0.76),
    ],
  };
}

const CHAIN_OPTS = { tickerFreshnessMs: 300_000, priceFreshnessMs: 60_000 };

/** Store the raw events, run the BTCUSDT cycles at A, B, C and write the SOLUSDT snapshot at C. */
export async function seedGex(store: Store): Promise<void> {
  await storeEvents(store, [...tradeEvents(), ...candleEvents()]);
  const state = new MarketState();
  for (const e of marketEvents()) state.apply(e);
  const ctx = { store, bus: null, state, chain: CHAIN_OPTS };
  await runCycle(ctx, 'BTCUSDT', A, 'live');
  state.apply({ type: 'index', event: indexPrice('deribit', 100_500, B - 1000) });
  state.apply({ type: 'index', event: indexPrice('okx', 100_600, B - 1000) });
  await runCycle(ctx, 'BTCUSDT', B, 'live');
  state.apply({ type: 'index', event: indexPrice('deribit', 99_500, C - 1000) });
  state.apply({ type: 'index', event: indexPrice('okx', 99_600, C - 1000) });
  await runCycle(ctx, 'BTCUSDT', C, 'live');

  const sol = solChain();
  const rows = rowsFromChain(sol, 'live');
  await storeSnapshotRows(store, 'SOLUSDT', C, rows);
  await storeStressRows(store, 'SOLUSDT', C, rows);
  const levels = levelsOf('SOLUSDT', C, rows);
  await storeLevelsAndFlow(store, levels, gammaFlowPoints(levels, { flow: null, std: null }));
}
