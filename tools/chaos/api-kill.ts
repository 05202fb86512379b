/**
 * Chaos scenario i: SIGKILL of an API replica while WebSocket clients listen to the live feed and replay on it. A
 * client of the killed replica sees its connection drop and reconnects to the other; the other replica's subscribers
 * get every notification without a gap; a replay started again there completes; the killed replica serves again
 * once restarted. The API poller does not probe the killed replica while it is down (refusals are the fault itself).
 */
import { PROCS } from './cluster.ts';
import { connectFeed, seqGaps } from './feed-client.ts';
import { sleep, waitUntil, type ChaosEnv, type FaultReport, type ScenarioDef } from './run-scenario.ts';

const API_DEAD_MS = 2000;
const CHANNEL = 'tape.BTCUSDT';
/** The replay: the last minute of the tape at 10x (about 6 s), so the kill lands in it. */
const REPLAY_WINDOW_MS = 60_000;
const REPLAY_SPEED = 10;

const wsUrl = (base: string): string => `${base.replace(/^http/, 'ws')}/v2/ws`;

const apiKill: ScenarioDef = {
  id: 'i',
  name: 'SIGKILL API replica during WS feed + replay',
  what: "SIGKILL of API 1 while a client of each replica listens to tape.BTCUSDT and API 1's client replays the last minute at 10x; dead 2 s, then started again: API 2's subscriber has no seq gap, the replay started again on API 2 completes, API 1 serves the feed again",
  inject: async (env: ChaosEnv): Promise<FaultReport> => {
    const { sup, apiUrls, apiKey } = env.cluster;
    const [api1, api2] = apiUrls as [string, string];
    const victim = await connectFeed(wsUrl(api1), apiKey);
    const survivor = await connectFeed(wsUrl(api2), apiKey);
    for (const c of [victim, survivor]) await c.request('public/subscribe', { channels: [CHANNEL] });
    const to = Date.now() - 1000;
    const window = { channels: [CHANNEL], from: to - REPLAY_WINDOW_MS, to, speed: REPLAY_SPEED };
    await victim.request('public/replay', window);
    await sleep(1000);
    env.poller.exclude(api1, true);
    const start = Date.now();
    await sup.kill(PROCS.api1);
    const victimClose = await victim.closed;
    await sleep(API_DEAD_MS);
    await sup.restart(PROCS.api1);
    const end = Date.now();
    const backAt = await waitUntil('API 1 answering', async () => (await fetch(`${api1}/v2/health`)).ok, 60_000);
    env.poller.exclude(api1, false);
    // The victim's client fails over: the replay again on API 2, then the feed on the restarted API 1.
    const failover = await connectFeed(wsUrl(api2), apiKey);
    await failover.request('public/replay', { ...window, speed: 'max' });
    await waitUntil('the replay on API 2 done', async () => failover.replayDone() !== null, 60_000, 100);
    const back = await connectFeed(wsUrl(api1), apiKey);
    await back.request('public/subscribe', { channels: [CHANNEL] });
    const liveAfter = await waitUntil('a live notification from the restarted API 1', async () => back.live.length > 0, 30_000, 100).then(
      () => true,
      () => false,
    );
    const duringKill = survivor.live.filter((n) => n.at >= start && n.at <= end).length;
    const done = failover.replayDone() ?? {};
    for (const c of [survivor, failover, back]) c.close();
    return {
      start,
      end,
      backAt,
      checks: {
        victimCloseCode: victimClose.code,
        victimReplayedBeforeKill: victim.replayed(),
        survivorNotifications: survivor.live.length,
        survivorDuringKill: duringKill,
        survivorSeqGaps: seqGaps(survivor.live, CHANNEL),
        failoverReplayStatus: String(done['status'] ?? 'none'),
        failoverReplayMessages: failover.replayed(),
        restartedServesFeed: liveAfter,
      },
    };
  },
};

export const API_SCENARIOS: readonly ScenarioDef[] = [apiKill];
