/**
 * `npm run chaos`: the product as separate processes on a real Kafka broker, fed by the sandbox, under injected faults;
 * prints one row per scenario (offered, stored, lost, doubled, time to recover, API 5xx) and writes them as JSON.
 *
 *   npm run chaos -- [--scenarios a,b,...,j] [--seconds 20] [--rate 5] [--store-down-seconds 30]
 *                    [--repeat N] [--contention [K]] [--seed S] [--brokers host:port] [--json FILE] [--work-dir DIR]
 *
 *   --scenarios           which scenarios, in order (default all): a SIGKILL ingest mid-flood, b SIGKILL processor B
 *                         mid-batch, c Kafka broker stop/start, d store unavailable, e malformed frames, f slow consumer,
 *                         g broker down 3 min, h store holder SIGKILL and restart, i SIGKILL of an API replica during
 *                         WS feed + replay, j broker down 30 s + processor B SIGKILL
 *   --seconds             flood length per scenario (default 20); the fault is injected 30 % into it
 *   --rate                option trades per venue every 100 ms during the flood (default 1 = 10/s per venue)
 *   --store-down-seconds  how long scenario d freezes the store holder (default 30)
 *   --brokers             use this Kafka instead of the harness's own broker (then scenarios c, g, j are skipped)
 *   --repeat              a campaign: the scenarios N times (default 1), each run on a fresh cluster with its own fault
 *                         instant (run 1 at 30 % of the flood, the others uniform in 15-70 %, from --seed); prints each
 *                         run's table and one summary per scenario (runs, passes, lost, doubled, crashed, recovery)
 *   --contention          K processes (default 1 when given without a value) spinning a CPU core for the whole campaign,
 *                         so timing-dependent failures show as on a busy machine
 *   --seed                seed of the fault instants (default 1)
 *   --json                result file (default .tmp/chaos/result.json)
 * Exit code 1 when a scenario lost or doubled a trade, offered none, or a process crashed (exited by itself).
 * Process logs: <work-dir>/run-<i>/logs/<process>.log (<work-dir>/logs for a single run).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitArgs } from '#platform/settings.ts';
import { startPrivateBroker, type BrokerControl } from './kafka-broker.ts';
import { runChaos, RECOVERABLE_VENUES, VENUE_NOTE } from './harness.ts';
import { SCENARIOS } from './scenarios.ts';
import { formatTable, passed } from './table.ts';
import { campaignPassed, faultAtOf, formatCampaign, summarize } from './campaign.ts';
import { startContention } from './contention.ts';
import { prng } from '#processors/analytics/testing/synthetic-chain.ts';
import type { ScenarioRow } from './run-scenario.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { flags } = splitArgs(process.argv.slice(2));
const num = (flag: string, dflt: number): number => {
  const v = Number(flags.get(flag) ?? dflt);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${flag} must be a positive number`);
  return v;
};
const wanted = (flags.get('scenarios') ?? SCENARIOS.map((s) => s.id).join(',')).split(',').map((s) => s.trim());
const scenarios = wanted.map((id) => {
  const s = SCENARIOS.find((x) => x.id === id);
  if (!s) throw new Error(`unknown scenario '${id}' (known: ${SCENARIOS.map((x) => x.id).join(', ')})`);
  return s;
});
const workDir = resolve(flags.get('work-dir') ?? join(root, '.tmp/chaos/run'));
const jsonFile = resolve(flags.get('json') ?? join(root, '.tmp/chaos/result.json'));
rmSync(workDir, { recursive: true, force: true });
mkdirSync(workDir, { recursive: true });
const say = (line: string): void => void process.stderr.write(`[chaos] ${line}\n`);

let broker: BrokerControl | null = null;
const external = flags.get('brokers');
if (external === undefined) {
  say("starting the harness's own Kafka broker on 127.0.0.1:19092");
  broker = startPrivateBroker(root, join(root, '.tmp/chaos/kafka'), 19092, 19093);
}
const repeat = num('repeat', 1);
if (!Number.isInteger(repeat)) throw new Error('--repeat must be a whole number');
const contentionFlag = flags.get('contention');
const contention = contentionFlag === undefined ? 0 : contentionFlag === 'true' || contentionFlag === '' ? 1 : num('contention', 1);
const draw = prng(num('seed', 1));
const spinners = startContention(contention);
if (contention > 0) say(`CPU contention: ${contention} process(es) spinning a core each`);
const started = Date.now();
let code = 1;
try {
  const runs: ScenarioRow[][] = [];
  for (let i = 0; i < repeat; i++) {
    const faultAt = faultAtOf(i, draw());
    const runDir = repeat === 1 ? workDir : join(workDir, `run-${i + 1}`);
    if (repeat > 1) say(`run ${i + 1}/${repeat}: faults at ${(faultAt * 100).toFixed(0)} % of the flood`);
    const rows = await runChaos({
      root,
      workDir: runDir,
      brokers: broker?.brokers ?? (external ?? '').split(','),
      broker,
      scenarios,
      floodSeconds: num('seconds', 20),
      faultAt,
      perVenue: num('rate', 1),
      everyMs: 100,
      storeDownSeconds: num('store-down-seconds', 30),
      log: say,
      onRow: (r) =>
        say(
          `${r.id} done: offered ${r.offered} stored ${r.stored} lost ${r.lost} doubled ${r.doubled} crashed ${r.crashed.length} ${JSON.stringify(r.checks)}`,
        ),
    });
    runs.push(rows);
    process.stdout.write(
      `\nchaos${repeat > 1 ? ` run ${i + 1}/${repeat} (faults at ${(faultAt * 100).toFixed(0)} %)` : ''}: ${VENUE_NOTE}\n`,
    );
    process.stdout.write(`${formatTable(rows)}\n`);
  }
  const summary = summarize(runs);
  if (repeat > 1) {
    process.stdout.write(`\ncampaign: ${repeat} runs, contention ${contention}, ${((Date.now() - started) / 60_000).toFixed(1)} min\n`);
    process.stdout.write(`${formatCampaign(summary)}\n`);
  }
  mkdirSync(dirname(jsonFile), { recursive: true });
  writeFileSync(
    jsonFile,
    `${JSON.stringify({ venues: RECOVERABLE_VENUES, seconds: (Date.now() - started) / 1000, contention, runs, summary }, null, 2)}\n`,
  );
  process.stdout.write(`results: ${jsonFile}; logs: ${workDir}\n`);
  code = runs.every((rows) => rows.every(passed)) && campaignPassed(summary) ? 0 : 1;
} catch (err) {
  say(`failed: ${(err as Error).stack ?? String(err)}`);
} finally {
  spinners.stop();
  broker?.stop();
}
process.exit(code);
