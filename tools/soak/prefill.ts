/**
 * Fills the product's in-memory bounds before the soak measures: the sandbox (in the soak's process) emits option
 * trades of live contracts per symbol, spread over the venues that list the symbol, paced by the product's ingest
 * count (`gex_ingest_events_total{type="option_trade"}`: at most `window` emitted and not yet ingested), until every
 * symbol's tape tail holds TAPE_TAIL_ROWS trades and every flow symbol's live flow book LIVE_FLOW_TRADES
 * (`gex_api_tape_tail_rows`, `gex_api_live_flow_rows`). Without it a soak measures the fill (the book grows by every
 * live trade for days at the demo's rates) instead of the steady state at the bounds. Prints progress every 10 s.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Sandbox } from '#sandbox/sandbox.ts';
import type { SandboxVenue } from '#sandbox/market/venues.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { METRIC } from '#platform/metrics/names.ts';
import { nextBurst, prefillTargets } from './prefill-plan.ts';
import { sumOf, type Sample } from './prom-text.ts';

export interface PrefillOptions {
  readonly sandbox: Sandbox;
  readonly scrape: () => Promise<Sample[]>;
  readonly symbols: readonly MarketSymbol[];
  readonly flowSymbols: readonly MarketSymbol[];
  readonly tapeTailRows: number;
  readonly liveFlowTrades: number;
  readonly log: (line: string) => void;
  /** Give up after this long (the soak then fails). Default 30 min. */
  readonly timeoutMs?: number;
}

export interface PrefillResult {
  readonly seconds: number;
  readonly emitted: number;
}

const WINDOW = 20_000;
const BURST = 4_000;
const STEP_MS = 250;
const PROGRESS_MS = 10_000;
/** Emitted past each bound: trades of a contract that expires today leave the book at midnight UTC. */
const MARGIN = 1_000;

const bySymbol = (samples: readonly Sample[], name: string, symbol: string): number =>
  sumOf(samples, name, (l) => l['symbol'] === symbol) ?? 0;

/** The venues of the sandbox that list options of the symbol. */
function venuesOf(sandbox: Sandbox, symbol: MarketSymbol): SandboxVenue[] {
  return (Object.keys(sandbox.servers) as SandboxVenue[]).filter((v) => sandbox.market.chains(v).some((c) => c.spec.symbol === symbol));
}

/** Whether every bound is full in the scraped samples. */
function full(o: PrefillOptions, m: readonly Sample[]): boolean {
  return o.symbols.every(
    (s) =>
      bySymbol(m, METRIC.apiTapeTailRows, s) >= o.tapeTailRows &&
      (!o.flowSymbols.includes(s) || bySymbol(m, METRIC.apiLiveFlowTrades, s) >= o.liveFlowTrades),
  );
}

export async function prefill(o: PrefillOptions): Promise<PrefillResult | null> {
  const started = Date.now();
  const deadline = started + (o.timeoutMs ?? 30 * 60_000);
  const targets = prefillTargets(o.symbols, o.flowSymbols, o.tapeTailRows, o.liveFlowTrades, MARGIN);
  const venues = new Map(o.symbols.map((s) => [s, venuesOf(o.sandbox, s)] as const));
  for (const [s, vs] of venues)
    if (vs.length === 0 && (targets[s] ?? 0) > 0) throw new Error(`prefill: no sandbox venue lists ${s} options`);
  const ingested = (m: readonly Sample[]): number => sumOf(m, METRIC.ingestEvents, (l) => l['type'] === 'option_trade') ?? 0;
  const ingestedAtStart = ingested(await o.scrape());
  const emitted: Record<string, number> = {};
  let emittedTotal = 0;
  let turn = 0;
  let lastProgress = started;
  for (;;) {
    const m = await o.scrape();
    if (full(o, m)) break;
    if (Date.now() > deadline) {
      o.log(`prefill: bounds not full after ${((Date.now() - started) / 60_000).toFixed(1)} min`);
      return null;
    }
    const outstanding = Math.max(0, emittedTotal - (ingested(m) - ingestedAtStart));
    const burst = nextBurst(targets, { emitted, outstanding }, { window: WINDOW, burst: BURST });
    for (const [symbol, n] of Object.entries(burst)) {
      const vs = venues.get(symbol as MarketSymbol) ?? [];
      const per = Math.ceil(n / vs.length);
      let left = n;
      for (const v of vs) {
        const k = Math.min(per, left);
        if (k <= 0) break;
        o.sandbox.emitTrades(v, k, symbol as MarketSymbol);
        left -= k;
      }
      emitted[symbol] = (emitted[symbol] ?? 0) + n;
      emittedTotal += n;
    }
    if (Date.now() - lastProgress >= PROGRESS_MS) {
      lastProgress = Date.now();
      const held = o.symbols.map(
        (s) =>
          `${s} tail ${bySymbol(m, METRIC.apiTapeTailRows, s)}` +
          (o.flowSymbols.includes(s) ? ` flow ${bySymbol(m, METRIC.apiLiveFlowTrades, s)}` : ''),
      );
      o.log(`prefill: ${emittedTotal} emitted, ${outstanding} not yet ingested; ${held.join(', ')}`);
    }
    turn++;
    await sleep(STEP_MS);
  }
  const seconds = (Date.now() - started) / 1000;
  o.log(`prefill: bounds full after ${seconds.toFixed(0)} s, ${emittedTotal} option trades emitted in ${turn} steps`);
  return { seconds, emitted: emittedTotal };
}
