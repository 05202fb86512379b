/**
 * Chaos scenarios of long and combined outages (g, h, j): the broker down for 3 minutes, the store holder killed and
 * started again, and the broker down while a processor is killed. run-scenario.ts floods, compares and times them.
 */
import { PROCS } from './cluster.ts';
import { sleep, waitUntil, type ChaosEnv, type FaultReport, type ScenarioDef } from './run-scenario.ts';

const externalBroker = (env: ChaosEnv): string | null =>
  env.broker === null ? 'external broker (--brokers): the harness stops only its own broker' : null;

/** How long the broker stays down in scenario g. */
export const LONG_BROKER_DOWN_MS = 180_000;
/** How long the store holder stays dead in scenario h. */
const STORE_DEAD_MS = 5_000;
/** How long the broker stays down in scenario j. */
const COMBINED_BROKER_DOWN_MS = 30_000;

const longBrokerOutage: ScenarioDef = {
  id: 'g',
  name: 'Kafka broker down 3 min',
  what: 'the broker is stopped (SIGTERM) for 3 minutes and started again on the same data: ingest keeps its trades (bounded, or recovered by its REST fill), processors and APIs wait and recover in the same process',
  skip: externalBroker,
  inject: async (env: ChaosEnv): Promise<FaultReport> => {
    if (env.broker === null) throw new Error('no broker control');
    const start = Date.now();
    const { upAt } = await env.broker.bounce(LONG_BROKER_DOWN_MS);
    return { start, end: upAt, backAt: upAt, checks: { downSeconds: (upAt - start) / 1000 } };
  },
};

const storeHolderKill: ScenarioDef = {
  id: 'h',
  name: 'store holder SIGKILL and restart',
  what: 'the store holder (the ClickHouse endpoint every process writes and reads through) is killed with SIGKILL, dead 5 s, then started again on the same data directory: writers retry, readers answer 503 meanwhile',
  inject: async (env: ChaosEnv): Promise<FaultReport> => {
    const { sup } = env.cluster;
    const oldPid = sup.pid(PROCS.store);
    const start = Date.now();
    await sup.kill(PROCS.store);
    await sleep(STORE_DEAD_MS);
    await sup.restart(PROCS.store);
    const end = Date.now();
    const backAt = await waitUntil('the store endpoint answering', () => env.cluster.store.ping(), 120_000);
    return { start, end, backAt, checks: { oldPid, newPid: sup.pid(PROCS.store), deadSeconds: STORE_DEAD_MS / 1000 } };
  },
};

const brokerAndProcessor: ScenarioDef = {
  id: 'j',
  name: 'broker down 30 s + processor B SIGKILL',
  what: 'two faults at once: the broker is stopped for 30 s and, 2 s into the outage, processor B is killed with SIGKILL; A takes its partitions once the broker is back; B is started again only after the scenario',
  skip: externalBroker,
  inject: async (env: ChaosEnv): Promise<FaultReport> => {
    const broker = env.broker;
    if (broker === null) throw new Error('no broker control');
    const { sup, kafka } = env.cluster;
    const start = Date.now();
    let killedAt = 0;
    const bounced = broker.bounce(COMBINED_BROKER_DOWN_MS, () => {
      void sleep(2000).then(async () => {
        await sup.kill(PROCS.procB);
        killedAt = Date.now();
      });
    });
    const { downAt, upAt } = await bounced;
    // The group coordinator answers a few seconds after the port opens (it loads the group first); no member can
    // be expired before then, so the takeover is timed from both instants.
    const coordinatorAt = await waitUntil(
      'the group coordinator answering',
      async () => (await kafka.groupState()).length > 0,
      180_000,
      200,
    );
    const takeoverAt = await waitUntil('processor A alone in the group', async () => (await kafka.members()) === 1, 180_000, 250);
    return {
      start,
      end: upAt,
      backAt: takeoverAt,
      checks: {
        downSeconds: (upAt - downAt) / 1000,
        killedWhileDown: killedAt > downAt && killedAt < upAt,
        coordinatorAfterPortSeconds: (coordinatorAt - upAt) / 1000,
        takeoverAfterBrokerSeconds: (takeoverAt - upAt) / 1000,
        takeoverAfterCoordinatorSeconds: (takeoverAt - coordinatorAt) / 1000,
      },
    };
  },
};

export const LONG_OUTAGE_SCENARIOS: readonly ScenarioDef[] = [longBrokerOutage, storeHolderKill, brokerAndProcessor];
