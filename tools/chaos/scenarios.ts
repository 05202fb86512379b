/**
 * The chaos scenarios: a-f here, g, h, j in long-outages.ts, i in api-kill.ts. Each injects its fault `faultAt` into the
 * flood (run-scenario.ts does the rest).
 */
import { PROCS } from './cluster.ts';
import { deliveredSince, metricSum, sleep, waitUntil, type ChaosEnv, type FaultReport, type ScenarioDef } from './run-scenario.ts';
import type { LedgerMark } from './ledger-compare.ts';
import { API_SCENARIOS } from './api-kill.ts';
import { LONG_OUTAGE_SCENARIOS } from './long-outages.ts';

/** How long a killed ingest stays dead before it is started again. */
const INGEST_DEAD_MS = 2000;

const ingestKill: ScenarioDef = {
  id: 'a',
  name: 'SIGKILL ingest mid-flood',
  what: "SIGKILL of the ingest process while the sandbox floods; dead 2 s, then started again (its start-up fill recovers from the venues' REST recent trades what it had not published)",
  inject: async (env: ChaosEnv, mark: LedgerMark): Promise<FaultReport> => {
    const { sup } = env.cluster;
    const deliveredBeforeKill = await deliveredSince(env, mark);
    const publishedBeforeKill = (await metricSum(env, PROCS.ingest, 'gex_ingest_events_total')) ?? 0;
    const oldPid = sup.pid(PROCS.ingest);
    const start = Date.now();
    await sup.kill(PROCS.ingest);
    await sleep(INGEST_DEAD_MS);
    const end = Date.now();
    const deliveredWhileDead = (await deliveredSince(env, mark)) - deliveredBeforeKill;
    await sup.restart(PROCS.ingest);
    const backAt = Date.now();
    // The new process's start-up fill: one REST fill per venue (gex_ingest_gap_fills_total counts its requests).
    const repaired = async (): Promise<boolean> =>
      ((await metricSum(env, PROCS.ingest, 'gex_ingest_gap_fills_total')) ?? 0) >= env.venues.length;
    return {
      start,
      end,
      backAt,
      repaired,
      checks: {
        killedMidFlood: deliveredBeforeKill > 0 && publishedBeforeKill > 0,
        deliveredBeforeKill,
        publishedBeforeKill,
        deliveredWhileDead,
        oldPid,
        newPid: sup.pid(PROCS.ingest),
      },
    };
  },
};

const processorKill: ScenarioDef = {
  id: 'b',
  name: 'SIGKILL processor B mid-batch',
  what: 'SIGKILL of processor B while it writes (its raw-writer rows counter moving, the group lagging); processor A takes over its partitions after the group session timeout; B is started again only after the scenario',
  inject: async (env: ChaosEnv): Promise<FaultReport> => {
    const { sup, kafka } = env.cluster;
    // Mid-batch: B has written rows and is still writing (its counter moved within the last 300 ms).
    let rowsBefore = 0;
    await waitUntil(
      'processor B writing',
      async () => {
        const a = (await metricSum(env, PROCS.procB, 'gex_raw_writer_rows_total')) ?? 0;
        await sleep(300);
        rowsBefore = (await metricSum(env, PROCS.procB, 'gex_raw_writer_rows_total')) ?? 0;
        return rowsBefore > a;
      },
      20_000,
      50,
    );
    const pendingAtKill = await kafka.pending();
    const start = Date.now();
    await sup.kill(PROCS.procB);
    const takeoverAt = await waitUntil('processor A alone in the group', async () => (await kafka.members()) === 1, 120_000, 250);
    return {
      start,
      end: start,
      backAt: takeoverAt,
      checks: { killedMidBatch: rowsBefore > 0, rowsBeforeKill: rowsBefore, pendingAtKill, takeoverSeconds: (takeoverAt - start) / 1000 },
    };
  },
};

const brokerBounce: ScenarioDef = {
  id: 'c',
  name: 'Kafka broker stop/start',
  what: 'the broker is stopped (SIGTERM, clean shutdown) for 5 s and started again on the same data; producers and consumers reconnect',
  skip: (env) => (env.broker === null ? 'external broker (--brokers): the harness stops only its own broker' : null),
  inject: async (env: ChaosEnv): Promise<FaultReport> => {
    if (env.broker === null) throw new Error('no broker control');
    const start = Date.now();
    const { upAt } = await env.broker.bounce(5000);
    return { start, end: upAt, backAt: upAt, checks: { downSeconds: (upAt - start) / 1000 } };
  },
};

const storeDown: ScenarioDef = {
  id: 'd',
  name: 'store unavailable',
  what: 'the store holder (the ClickHouse endpoint every process writes and reads through) is frozen with SIGSTOP, then SIGCONT',
  inject: async (env: ChaosEnv): Promise<FaultReport> => {
    const { sup } = env.cluster;
    const start = Date.now();
    sup.pause(PROCS.store);
    await sleep(env.storeDownMs);
    sup.resume(PROCS.store);
    const end = Date.now();
    const backAt = await waitUntil('the store endpoint answering', () => env.cluster.store.ping(), 60_000);
    return { start, end, backAt, checks: { downSeconds: (end - start) / 1000 } };
  },
};

const malformed: ScenarioDef = {
  id: 'e',
  name: 'malformed frames',
  what: 'every venue server sends each malformed kind (truncated, not JSON, bad field, oversized: 2 MiB) to every client, 3 rounds 1 s apart, during the flood',
  inject: async (env: ChaosEnv): Promise<FaultReport> => {
    const before = (await metricSum(env, PROCS.ingest, 'gex_ingest_parse_errors_total')) ?? 0;
    const start = Date.now();
    let sent = 0;
    for (let round = 0; round < 3; round++) {
      for (const kind of ['truncated', 'not_json', 'bad_field', 'oversized'])
        sent += Number((await env.sandbox.ask({ cmd: 'malformed', kind }))['sent'] ?? 0);
      await sleep(1000);
    }
    const end = Date.now();
    await sleep(1000);
    const deadLetters = ((await metricSum(env, PROCS.ingest, 'gex_ingest_parse_errors_total')) ?? 0) - before;
    return { start, end, backAt: end, checks: { malformedSent: sent, deadLetterCounterDelta: deadLetters } };
  },
};

const slowConsumer: ScenarioDef = {
  id: 'f',
  name: 'slow consumer (processor A frozen)',
  what: 'processor A is frozen with SIGSTOP for 10 s (its partitions lag; shorter than the 30 s session timeout, so no rebalance), then SIGCONT',
  inject: async (env: ChaosEnv): Promise<FaultReport> => {
    const { sup, kafka } = env.cluster;
    const start = Date.now();
    sup.pause(PROCS.procA);
    let maxPending = 0;
    while (Date.now() - start < 10_000) {
      maxPending = Math.max(maxPending, await kafka.pending().catch(() => 0));
      await sleep(1000);
    }
    sup.resume(PROCS.procA);
    const end = Date.now();
    return { start, end, backAt: end, checks: { maxPending } };
  },
};

export const SCENARIOS: readonly ScenarioDef[] = [
  ingestKill,
  processorKill,
  brokerBounce,
  storeDown,
  malformed,
  slowConsumer,
  ...LONG_OUTAGE_SCENARIOS,
  ...API_SCENARIOS,
].sort((x, y) => (x.id < y.id ? -1 : 1));
