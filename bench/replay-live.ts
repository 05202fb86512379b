/**
 * The live-feed part of the replay bench (bench/replay.ts) and the child processes it drives: BENCH_REPLAY_LIVE_CLIENTS
 * (100) subscribers of tape.BTCUSDT (bench/ws-clients-process.ts: every 20th client records publish -> receive, the
 * trade's `time` being its publish time), BENCH_REPLAY_LIVE_RATE (200) trades/s published on the in-process bus for
 * BENCH_REPLAY_LIVE_SECONDS (10), with or without the replay clients (bench/replay-clients-process.ts) running
 * replays of levels + tape meanwhile. The server fan-out (bus receive -> written to the last subscriber, around
 * FeedHub.publish, as bench/ws.ts measures it) and the server's event-loop delay are recorded beside the
 * client-observed delay.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { MemoryBus } from '#bus/memory-bus.ts';
import { metricsRegistry } from '#platform/metrics/registry.ts';
import { encodeMarketEvent } from '#schemas/event-codec.ts';
import { TOPICS, type OptionTrade } from '#schemas/events.ts';
import type { ApiInstance } from '#query-api/types.ts';
import type { ReplayResult, StartCommand, Transport } from './replay-clients-process.ts';
import { feedTrade } from '#query-api/ws/testing/trade.ts';

const CLIENTS = Number(process.env['BENCH_REPLAY_LIVE_CLIENTS'] ?? 100);
const RATE = Number(process.env['BENCH_REPLAY_LIVE_RATE'] ?? 200);
const SECONDS = Number(process.env['BENCH_REPLAY_LIVE_SECONDS'] ?? 10);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A child process: ask() sends a command and resolves with its answer. */
export interface Clients {
  readonly proc: ChildProcess;
  ask<T>(m: unknown): Promise<T>;
}

export function child(file: string): Clients {
  const proc = fork(fileURLToPath(new URL(file, import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    proc,
    ask: <T>(m: unknown): Promise<T> =>
      new Promise<T>((resolve) => {
        proc.once('message', (r) => resolve(r as T));
        proc.send(m as never);
      }),
  };
}

export interface LiveRig {
  readonly app: ApiInstance;
  readonly bus: MemoryBus;
  /** http://host:port of the app. */
  readonly base: string;
  readonly liveKeys: readonly string[];
  /** One key (one user) per concurrent replay. */
  readonly replayKeys: readonly string[];
  readonly replays: Clients;
  readonly subscribers: Clients;
  readonly from: string;
  readonly to: string;
}

export interface LiveFigures {
  readonly e2eP50: number | null;
  readonly e2eP99: number | null;
  readonly fanoutP50: number;
  readonly fanoutP99: number;
  /** The server's event-loop delay p99 during the measure, ms (perf_hooks.monitorEventLoopDelay). */
  readonly loopP99: number;
  /** The server's event-loop utilization during the measure (perf_hooks.eventLoopUtilization: busy share of the time). */
  readonly loopBusy: number;
  /** Live notifications received by the subscribers, and published x subscribers. */
  readonly received: number;
  readonly expected: number;
  /** The concurrent replays during the measure: messages received, their rate, the end statuses counted. */
  readonly replays: { readonly messages: number; readonly perSecond: number; readonly statuses: string } | null;
}

const trade = (n: number): OptionTrade => feedTrade(Date.now(), n, { prefix: 'live' });

/** Publishes RATE trades/s in 10 ms steps for SECONDS; returns how many. */
async function publishAtRate(bus: MemoryBus): Promise<number> {
  const perStep = Math.max(1, Math.round(RATE / 100));
  const start = performance.now();
  let n = 0;
  for (let step = 0; step < SECONDS * 100; step++) {
    const wait = start + step * 10 - performance.now();
    if (wait > 0) await sleep(wait);
    const batch = Array.from({ length: perStep }, () => encodeMarketEvent({ type: 'option_trade', event: trade(n++) }).message);
    await bus.publish(TOPICS.option_trade, batch);
  }
  return n;
}

const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
};

const probes = new WeakMap<ApiInstance, number[]>();

/** Fan-out durations of the app's feed, recorded around FeedHub.publishMany, the trades' path (installed once per app). */
function fanout(app: ApiInstance): number[] {
  const known = probes.get(app);
  if (known !== undefined) return known;
  const feed = app.wsFeed;
  if (feed === null) throw new Error('the app has no WebSocket feed');
  const samples: number[] = [];
  const publishMany = feed.hub.publishMany.bind(feed.hub);
  feed.hub.publishMany = (name, data, at) => {
    const n = publishMany(name, data, at);
    samples.push(performance.now() - at);
    return n;
  };
  probes.set(app, samples);
  return samples;
}

/** Waits (up to 60 s) until the server has ended every replay (gex_running_replays back to 0), or 2 s without the metric. */
async function drained(): Promise<void> {
  const gauge = metricsRegistry.getSingleMetric('gex_running_replays');
  if (gauge === undefined) return sleep(2000);
  for (const end = Date.now() + 60_000; Date.now() < end; await sleep(100)) {
    const active = (await gauge.get()).values.reduce((n, v) => n + v.value, 0);
    if (active === 0) return;
  }
}

interface SubscriberReport {
  readonly received: number;
  readonly e2e_p50_ms: number | null;
  readonly e2e_p99_ms: number | null;
}

/** The live feed's delays for SECONDS, with CLIENTS subscribers, while `transport` replays run (null: none). */
export async function liveDelay(rig: LiveRig, transport: Transport | null): Promise<LiveFigures> {
  process.stderr.write(`  live feed ${transport === null ? 'idle' : `with ${rig.replayKeys.length} ${transport} replays`}...\n`);
  const samples = fanout(rig.app);
  const url = `${rig.base.replace(/^http/, 'ws')}/v2/ws`;
  await rig.subscribers.ask({ cmd: 'connect', url, keys: rig.liveKeys, n: CLIENTS, subscribe: true });
  if (transport !== null) {
    const start: StartCommand = {
      cmd: 'start',
      transport,
      base: rig.base,
      keys: rig.replayKeys,
      channels: ['levels.BTCUSDT', 'tape.BTCUSDT'],
      from: rig.from,
      to: rig.to,
    };
    await rig.replays.ask(start);
  }
  await sleep(1000);
  samples.length = 0;
  const before = transport === null ? null : await rig.replays.ask<{ messages: number }>({ cmd: 'progress' });
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const published = await publishAtRate(rig.bus);
  const after = transport === null ? null : await rig.replays.ask<{ messages: number }>({ cmd: 'progress' });
  const seconds = (performance.now() - t0) / 1000;
  const busy = performance.eventLoopUtilization(elu0).utilization;
  loop.disable();
  await sleep(500);
  const seen = await rig.subscribers.ask<SubscriberReport>({ cmd: 'report' });
  const fan = [...samples];
  await rig.subscribers.ask({ cmd: 'close' });
  let replays: LiveFigures['replays'] = null;
  if (transport !== null && before !== null && after !== null) {
    const results = await rig.replays.ask<ReplayResult[]>({ cmd: 'stop' });
    await drained();
    const statuses = new Map<string, number>();
    for (const r of results) statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    const messages = after.messages - before.messages;
    replays = { messages, perSecond: messages / seconds, statuses: [...statuses].map(([s, n]) => `${n} ${s}`).join(', ') };
  }
  return {
    e2eP50: seen.e2e_p50_ms,
    e2eP99: seen.e2e_p99_ms,
    fanoutP50: quantile(fan, 0.5),
    fanoutP99: quantile(fan, 0.99),
    loopP99: loop.percentile(99) / 1e6,
    loopBusy: busy,
    // Each subscriber also gets the welcome and the subscribe answer.
    received: seen.received - 2 * CLIENTS,
    expected: published * CLIENTS,
    replays,
  };
}
