/**
 * The chaos harness's two most important scenarios in short form, on the Kafka suite's broker: the product as
 * separate processes (store holder, ingest, processors A and B in one group, APIs 1 and 2) fed by the sandbox;
 * (a) SIGKILL of ingest mid-flood, restarted; (b) SIGKILL of processor B mid-batch, A takes over. Both: trades
 * offered, none lost, none doubled, and the process was really killed while it worked.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChaos } from './harness.ts';
import { SCENARIOS } from './scenarios.ts';
import { formatTable } from './table.ts';

const brokers = (process.env['KAFKA_TEST_BROKERS'] ?? '').split(',').filter((b) => b.length > 0);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

test(
  'chaos (short): SIGKILL ingest mid-flood and SIGKILL processor B mid-batch lose and double nothing',
  { timeout: 300_000 },
  async () => {
    assert.ok(
      brokers.length > 0,
      'KAFKA_TEST_BROKERS is not set (start a broker: bash ops/kafka/start.sh; KAFKA_TEST_BROKERS=127.0.0.1:9092)',
    );
    const workDir = mkdtempSync(join(tmpdir(), 'gex-chaos-'));
    const started = Date.now();
    try {
      const rows = await runChaos({
        root,
        workDir,
        brokers,
        broker: null,
        scenarios: SCENARIOS.filter((s) => s.id === 'a' || s.id === 'b'),
        floodSeconds: 8,
        perVenue: 1,
        everyMs: 100,
        storeDownSeconds: 30,
      });
      console.log(
        `${formatTable(rows)}\n${JSON.stringify(rows.map((r) => ({ id: r.id, checks: r.checks })))} wall ${(Date.now() - started) / 1000} s`,
      );
      const [a, b] = rows;
      assert.ok(a && b);
      for (const r of [a, b]) {
        assert.ok(r.offered > 0, `${r.id}: trades offered`);
        assert.deepEqual(
          { id: r.id, lost: r.lost, doubled: r.doubled, sample: r.lostSample },
          { id: r.id, lost: 0, doubled: 0, sample: [] },
        );
        assert.equal(r.stored, r.offered, `${r.id}: every offered trade stored`);
        assert.equal(r.api5xxDuring + r.api5xxAfter, 0, `${r.id}: no API 5xx`);
      }
      assert.equal(a.checks['killedMidFlood'], true, 'ingest killed while it published the flood');
      assert.notEqual(a.checks['oldPid'], a.checks['newPid'], 'ingest is a new process');
      assert.ok(Number(a.checks['deliveredBeforeKill']) > 0);
      assert.equal(b.checks['killedMidBatch'], true, 'processor B killed while it wrote rows');
      assert.ok(Number(b.checks['takeoverSeconds']) > 0, 'processor A alone in the group after the kill');
    } finally {
      rmSync(workDir, { recursive: true, force: true });
    }
  },
);
