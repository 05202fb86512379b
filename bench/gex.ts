/**
 * GEX engine benchmark: one snapshot cycle for all four symbols with realistic synthetic chains
 * (BTC 4 venues × ~800 instruments, ETH 4 × ~700, SOL and HYPE 2 × ~200): per-venue rows (strike tables,
 * 201-point re-priced profiles for std and flow, 0DTE blocks, expiry stats) plus levels for both models
 * with every optional block. Target < 50 ms on one core. Baseline in the same run: a bare Black-76 gamma
 * loop over the same instruments.
 *
 * Run alone: node --import tsx bench/gex.ts
 */
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { MarketSymbol, Venue } from '#schemas/events.ts';
import { buildVenueRows, levelsFromRows } from '#processors/analytics/aggregate.ts';
import { gamma, pricingT } from '#processors/analytics/black76.ts';
import { ALL_INCLUDES } from '#processors/analytics/levels.ts';
import { syntheticChain } from '#processors/analytics/testing/synthetic-chain.ts';
import type { ChainSnapshot } from '#processors/analytics/types.ts';

const NOW = Date.UTC(2026, 9, 12, 13, 0, 0);

const SETUP: readonly { symbol: MarketSymbol; spot: number; venues: readonly Venue[]; perVenue: number; iv: number }[] = [
  { symbol: 'BTCUSDT', spot: 97_000, venues: ['deribit', 'okx', 'bybit', 'binance'], perVenue: 800, iv: 0.5 },
  { symbol: 'ETHUSDT', spot: 3_400, venues: ['deribit', 'okx', 'bybit', 'binance'], perVenue: 700, iv: 0.65 },
  { symbol: 'SOLUSDT', spot: 180, venues: ['deribit', 'okx'], perVenue: 200, iv: 0.8 },
  { symbol: 'HYPEUSDT', spot: 35, venues: ['derive', 'okx'], perVenue: 200, iv: 1.0 },
];

function chains(): ChainSnapshot[] {
  return SETUP.map((s, i) =>
    syntheticChain({
      symbol: s.symbol,
      now: NOW,
      spot: s.spot,
      venues: s.venues,
      perVenue: s.perVenue,
      seed: 17 + i,
      withInventory: s.symbol === 'BTCUSDT' || s.symbol === 'ETHUSDT',
      baseIv: s.iv,
    }),
  );
}

let sink = 0;

function cycle(cs: readonly ChainSnapshot[]): void {
  for (const c of cs) {
    const rows = buildVenueRows(c);
    const meta = { symbol: c.symbol, computed_at: c.now, spot: c.spot, perp_price: c.perpPrice };
    for (const model of ['std', 'flow'] as const) {
      const l = levelsFromRows(meta, rows, model, undefined, ALL_INCLUDES);
      sink += l.all_expiry.net_gex;
    }
  }
}

function baseline(cs: readonly ChainSnapshot[]): void {
  for (const c of cs) {
    for (const i of c.instruments) {
      const t = pricingT(i.expiry, c.now);
      if (t === null || i.markIv === null) continue;
      sink += gamma(i.forward, i.strike, i.markIv, t);
    }
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

function time(fn: () => void, runs: number): { median: number; min: number } {
  const ts: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    fn();
    ts.push(performance.now() - t0);
  }
  return { median: median(ts), min: Math.min(...ts) };
}

export async function runGexBench(): Promise<void> {
  const cs = chains();
  const counts = cs.map((c) => `${c.symbol} ${c.instruments.length}`).join(', ');
  const total = cs.reduce((n, c) => n + c.instruments.length, 0);
  for (let w = 0; w < 5; w++) {
    cycle(cs);
    baseline(cs);
  }
  const full = time(() => cycle(cs), 30);
  const base = time(() => baseline(cs), 200);
  const target = 50;
  console.log(`gex bench: ${total} instruments (${counts}); grid 201 points; models std+flow; all levels blocks`);
  console.log(
    `  snapshot cycle (rows + profiles + levels x2 models): median ${full.median.toFixed(2)} ms, min ${full.min.toFixed(2)} ms (target < ${target} ms: ${full.median < target ? 'OK' : 'MISSED'})`,
  );
  console.log(`  baseline bare Black-76 gamma loop:                   median ${base.median.toFixed(3)} ms, min ${base.min.toFixed(3)} ms`);
  console.log(`  ratio cycle / baseline: ${(full.median / base.median).toFixed(1)}x  (profile = 201 gamma evaluations per instrument)`);
  if (!Number.isFinite(sink)) console.log('  (sink not finite)');
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) await runGexBench();
