/**
 * The live-feed part of the replay bench (bench/replay.ts) and the child processes it drives: BENCH_REPLAY_LIVE_CLIENTS
 * (100) subscribers of tape.BTCUSDT (bench/ws-clients-process.ts: every 20th client records publish -> receive: the
 * instant each trade was handed to the bus and the instant a client read it, both on the machine's monotonic clock,
 * matched by trade id, so the delays are exact to the µs rather than to the whole ms of the trade's `time`),
 * BENCH_REPLAY_LIVE_RATE (200) trades/s published on the in-process bus for BENCH_REPLAY_LIVE_SECONDS (10), with
 * or without the replay clients (bench/replay-clients-process.ts) running replays of levels + tape meanwhile. The
 * server fan-out (bus receive -> written to the last subscriber, around FeedHub.publish, as bench/ws.ts measures it)
 * and the server's event-loop delay are recorded beside the client-observed delay.
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
  /** Publish -> client receive, ms (µs digits), of every 20th subscriber's notifications; null when none arrived. */
  readonly e2eP50: number | null;
  readonly e2eP99: number | null;
  /** How many notifications the e2e figures are of. */
  readonly samples: number;
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

/** The machine's monotonic clock in ms (µs digits): the same clock in every process (bench/ws-clients-process.ts). */
const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/**
 * Publishes RATE trades/s in 10 ms steps for SECONDS; returns the instant (monotonicMs) each trade was handed to the
 * bus, indexed by its trade id (0, 1, ...).
 */
async function publishAtRate(bus: MemoryBus): Promise<number[]> {
  const perStep = Math.max(1, Math.round(RATE / 100));
  const start = performance.now();
  const sent: number[] = [];
  for (let step = 0; step < SECONDS * 100; step++) {
    const wait = start + step * 10 - performance.now();
    if (wait > 0) await sleep(wait);
    const first = sent.length;
    const batch = Array.from({ length: perStep }, (_, i) => encodeMarketEvent({ type: 'option_trade', event: trade(first + i) }).message);
    const at = monotonicMs();
    for (let i = 0; i < perStep; i++) sent.push(at);
    await bus.publish(TOPICS.option_trade, batch);
  }
  return sent;
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
  /** [trade_id, receive instant (monotonicMs)] of every sampled notification. */
  readonly arrivals: readonly (readonly [string, number])[];
}

/** Publish -> receive delays (ms) of the sampled notifications, by trade id. */
function e2eDelays(sent: readonly number[], arrivals: SubscriberReport['arrivals']): number[] {
  const delays: number[] = [];
  for (const [id, at] of arrivals) {
    const published = sent[Number(id)];
    if (published !== undefined) delays.push(at - published);
  }
  return delays;
}

/** The live feed's delays for SECONDS, with CLIENTS subscribers, while `transport` replays run (null: none). */
export async function liveDelay(rig: LiveRig, transport: Transport | null): Promise<LiveFigures> {
  process.stderr.write(`  live feed ${transport === null ? 'idle' : `with ${rig.replayKeys.length} ${transport} replays`}...\n`);
  const samples = fanout(rig.app);
  const url = `${rig.base.replace(/^http/, 'ws')}/v2/ws`;
  await rig.subscribers.ask({ cmd: 'connect', url, keys: rig.liveKeys, n: CLIENTS, subscribe: true, arrivals: true });
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
  const sent = await publishAtRate(rig.bus);
  const after = transport === null ? null : await rig.replays.ask<{ messages: number }>({ cmd: 'progress' });
  const seconds = (performance.now() - t0) / 1000;
  const busy = performance.eventLoopUtilization(elu0).utilization;
  loop.disable();
  await sleep(500);
  const seen = await rig.subscribers.ask<SubscriberReport>({ cmd: 'report' });
  const e2e = e2eDelays(sent, seen.arrivals);
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
    e2eP50: e2e.length === 0 ? null : quantile(e2e, 0.5),
    e2eP99: e2e.length === 0 ? null : quantile(e2e, 0.99),
    samples: e2e.length,
    fanoutP50: quantile(fan, 0.5),
    fanoutP99: quantile(fan, 0.99),
    loopP99: loop.percentile(99) / 1e6,
    loopBusy: busy,
    // Each subscriber also gets the welcome and the subscribe answer.
    received: seen.received - 2 * CLIENTS,
    expected: sent.length * CLIENTS,
    replays,
  };
}
