/**
 * Role-level broker outages (#34): every role (`gex ingest`, `gex processors`, `gex query-api` as separate processes
 * sharing a store holder, and `gex all` with its own store) runs on a private broker of its own (never the suite's
 * shared one), fed by the sandbox flooding option trades; the brokers are stopped for 5 s, 45 s and 180 s at seeded
 * random instants (plan.ts: one during a snapshot tick's durability wait, one during a consumer group join) and
 * started again. After each outage: every role process is the same pid, ingest publishes again and publishes what it
 * held within 60 s, the processors store a snapshot of every symbol within two ticks, the API answers /v2 and its
 * WebSocket feed resumes (bounds in recovery.ts). At the end the stored option trades equal the sandbox ledger: none
 * lost, none doubled.
 * ~8 min on a quiet 2-core machine (start-up ~65 s); ROLE_OUTAGE_SEED=<seed printed> replays the instants;
 * ROLE_OUTAGE_KEEP_LOGS=1 keeps the process logs of a passing run too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killChildrenOnSignal } from './orphans.ts';
import { outageSeed } from './plan.ts';
import { runRoleOutages, type RoleOutageResult } from './run.ts';
import { formatOutageTable } from './table.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const say = (line: string): void => console.log(`[role-outage] ${line}`);

/** Fatal lines (an unhandled rejection or exception: the role exits 70) in the processes' logs. */
function fatalLines(logDir: string): string[] {
  return readdirSync(logDir).flatMap((f) =>
    readFileSync(join(logDir, f), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"level":60'))
      .map((l) => `${f}: ${l.slice(0, 600)}`),
  );
}

function check(r: RoleOutageResult): void {
  for (const [name, alive] of Object.entries(r.aliveAtEnd)) assert.equal(alive, true, `${name} still runs at the end`);
  for (const per of r.outages) {
    for (const o of per) {
      const what = `${o.deployment}, ${o.planned.downMs / 1000} s outage`;
      for (const [role, pid] of Object.entries(o.pids)) {
        assert.ok(pid.alive && pid.before === pid.after, `${what}: ${role} is the same process (pid ${pid.before} -> ${pid.after})`);
      }
      const rec = o.recovery;
      assert.notEqual(rec.publishS, null, `${what}: publishes again within 60 s`);
      assert.notEqual(rec.backlogS, null, `${what}: what it held during the outage is published within 60 s`);
      assert.notEqual(
        rec.snapshotsS,
        null,
        `${what}: a snapshot of every symbol within two ticks (the newest was ${o.snapshotsBehindS} s old at the SIGTERM)`,
      );
      for (const [symbol, n] of Object.entries(rec.snapshotTick)) assert.ok(n <= 2, `${what}: ${symbol} snapshot at tick ${n}`);
      assert.notEqual(rec.v2S, null, `${what}: /v2 answers within 30 s`);
      assert.notEqual(rec.wsTapeS, null, `${what}: the WS tape resumes within 60 s`);
      assert.notEqual(rec.wsLevelsS, null, `${what}: the WS levels resume within two ticks`);
      // The wait met the outage: a look-up failed, or hung in KafkaJS' own retries until the wait's deadline abandoned it.
      if (o.planned.aim === 'durability wait')
        assert.ok(o.drainLookupErrors + o.drainUnconfirmed > 0, `${what}: the broker went away during a durability wait`);
      if (o.planned.aim === 'group join') {
        assert.match(o.groupState ?? '', /Rebalance$/, `${what}: the broker went away during a group join`);
        assert.equal(o.joinerAlive, true, `${what}: the joining processor survived`);
      }
    }
  }
  for (const { deployment, count } of r.ledger) {
    assert.ok(count.offered > 0, `${deployment}: trades offered`);
    assert.deepEqual(
      { deployment, lost: count.lost, doubled: count.doubled, sample: count.lostSample },
      { deployment, lost: 0, doubled: 0, sample: [] },
    );
    assert.equal(count.stored, count.offered, `${deployment}: every offered trade stored`);
  }
}

test(
  'broker outages of 5 s, 45 s and 180 s: every role keeps its process, works again in time, loses and doubles nothing',
  { timeout: 1_500_000 },
  async () => {
    const workDir = mkdtempSync(join(tmpdir(), 'gex-role-outage-'));
    const started = Date.now();
    let passed = false;
    const release = killChildrenOnSignal(workDir);
    try {
      const result = await runRoleOutages({ root, workDir, seed: outageSeed(), perVenue: 1, everyMs: 250, log: say });
      say(
        `\n${formatOutageTable(result)}\nstart-up ${result.startupSeconds} s, wall ${(Date.now() - started) / 1000} s, seed ${result.seed}`,
      );
      const fatal = fatalLines(join(workDir, 'logs'));
      assert.deepEqual(fatal, [], 'no role logged a fatal error');
      check(result);
      passed = true;
    } finally {
      release();
      if (passed && process.env['ROLE_OUTAGE_KEEP_LOGS'] === undefined) rmSync(workDir, { recursive: true, force: true });
      else say(`process logs kept in ${join(workDir, 'logs')}`);
    }
  },
);
