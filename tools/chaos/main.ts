/**
 * `npm run chaos`: the product as separate processes on a real Kafka broker, fed by the sandbox, under injected faults;
 * prints one row per scenario (offered, stored, lost, doubled, time to recover, API 5xx) and writes them as JSON.
 *
 *   npm run chaos -- [--scenarios a,b,c,d,e,f] [--seconds 20] [--rate 5] [--store-down-seconds 30]
 *                    [--brokers host:port] [--json FILE] [--work-dir DIR]
 *
 *   --scenarios           which scenarios, in order (default all): a SIGKILL ingest mid-flood, b SIGKILL processor B
 *                         mid-batch, c Kafka broker stop/start, d store unavailable, e malformed frames, f slow consumer
 *   --seconds             flood length per scenario (default 20); the fault is injected 30 % into it
 *   --rate                option trades per venue every 100 ms during the flood (default 1 = 10/s per venue)
 *   --store-down-seconds  how long scenario d freezes the store holder (default 30)
 *   --brokers             use this Kafka instead of the harness's own broker (then scenario c is skipped)
 *   --json                result file (default .tmp/chaos/result.json)
 * Exit code 1 when a scenario lost or doubled a trade (or offered none). Process logs: <work-dir>/logs/<process>.log.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { splitArgs } from '#platform/settings.ts';
import { startPrivateBroker, type BrokerControl } from './kafka-broker.ts';
import { runChaos, RECOVERABLE_VENUES, VENUE_NOTE } from './harness.ts';
import { SCENARIOS } from './scenarios.ts';
import { formatTable, passed } from './table.ts';

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
const started = Date.now();
let code = 1;
try {
  const rows = await runChaos({
    root,
    workDir,
    brokers: broker?.brokers ?? (external ?? '').split(','),
    broker,
    scenarios,
    floodSeconds: num('seconds', 20),
    perVenue: num('rate', 1),
    everyMs: 100,
    storeDownSeconds: num('store-down-seconds', 30),
    log: say,
    onRow: (r) =>
      say(`${r.id} done: offered ${r.offered} stored ${r.stored} lost ${r.lost} doubled ${r.doubled} ${JSON.stringify(r.checks)}`),
  });
  process.stdout.write(`\nchaos: ${VENUE_NOTE}\n`);
  process.stdout.write(`${formatTable(rows)}\n`);
  mkdirSync(dirname(jsonFile), { recursive: true });
  writeFileSync(jsonFile, `${JSON.stringify({ venues: RECOVERABLE_VENUES, seconds: (Date.now() - started) / 1000, rows }, null, 2)}\n`);
  process.stdout.write(`results: ${jsonFile}; logs: ${join(workDir, 'logs')}\n`);
  code = rows.every(passed) ? 0 : 1;
} catch (err) {
  say(`failed: ${(err as Error).stack ?? String(err)}`);
} finally {
  broker?.stop();
}
process.exit(code);
