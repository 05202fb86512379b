import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScenarioRow } from './run-scenario.ts';
import { campaignPassed, faultAtOf, formatCampaign, summarize } from './campaign.ts';

const row = (id: string, o: Partial<ScenarioRow> = {}): ScenarioRow => ({
  id,
  name: `scenario ${id}`,
  offered: 100,
  delivered: 100,
  stored: 100,
  lost: 0,
  lostDelivered: 0,
  lostSample: [],
  late: 0,
  lateSeconds: null,
  doubled: 0,
  recovered: 0,
  recoverSeconds: 10,
  api5xxDuring: 0,
  api5xxAfter: 0,
  apiNoAnswerDuring: 0,
  checks: {},
  crashed: [],
  seconds: 30,
  ...o,
});

test('a campaign summary per scenario: passes, sums of lost / doubled / crashed, recovery median and max', () => {
  const runs = [
    [row('a', { recoverSeconds: 12 }), row('c', { recoverSeconds: 40 })],
    [row('a', { recoverSeconds: 20, crashed: ['processor-a'] }), row('c', { recoverSeconds: null, lost: 3, late: 686, lateSeconds: 40 })],
    [row('a', { recoverSeconds: 16, apiNoAnswerDuring: 2 }), row('c', { skipped: 'external broker' })],
  ];
  const s = summarize(runs);
  assert.deepEqual(s, [
    {
      id: 'a',
      name: 'scenario a',
      runs: 3,
      passes: 2,
      skipped: 0,
      lost: 0,
      late: 0,
      lateMaxSeconds: null,
      doubled: 0,
      crashed: 1,
      apiNoAnswer: 2,
      recoverP50: 16,
      recoverMax: 20,
      notRecovered: 0,
    },
    {
      id: 'c',
      name: 'scenario c',
      runs: 3,
      passes: 1,
      skipped: 1,
      lost: 3,
      late: 686,
      lateMaxSeconds: 40,
      doubled: 0,
      crashed: 0,
      apiNoAnswer: 0,
      recoverP50: 40,
      recoverMax: 40,
      notRecovered: 1,
    },
  ]);
  assert.equal(campaignPassed(s), false, 'a crash and a loss fail the campaign');
  assert.equal(campaignPassed(summarize([[row('a')], [row('a'), row('b', { skipped: 'no broker' })]])), true);
  const table = formatCampaign(s).split('\n');
  assert.equal(table.length, 4);
  assert.match(
    table[0] ?? '',
    /^\| scenario +\| runs \| passes \| skipped \| lost \| late \(max s\) \| doubled \| crashed \| API no answer \| recover s p50 \|/,
  );
  assert.match(table[2] ?? '', /^\| a scenario a \|\s+3 \|\s+2 \|\s+0 \|\s+0 \|\s+0 \|\s+0 \|\s+1 \|\s+2 \|\s+16\.0 \|\s+20\.0 \|\s+0 \|$/);
  assert.match(table[3] ?? '', /^\| c scenario c \|\s+3 \|\s+1 \|\s+1 \|\s+3 \|\s+686 \(40\) \|/);
});

test('fault instants: the first run at 30 % of the flood, the others uniform in [15 %, 70 %]', () => {
  assert.equal(faultAtOf(0, 0.9), 0.3);
  assert.equal(faultAtOf(1, 0), 0.15);
  assert.ok(Math.abs(faultAtOf(2, 0.5) - 0.425) < 1e-12);
  assert.ok(faultAtOf(3, 0.999999) < 0.7);
});
