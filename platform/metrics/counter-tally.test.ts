import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { CounterTallies } from './counter-tally.ts';

test('tallies: a series counts in a plain number and every read of the registry shows the sums', async () => {
  const registry = new Registry();
  const tallies = new CounterTallies({ name: 't_frames_total', help: 'h', labelNames: ['venue', 'type'], registers: [registry] });
  const a = tallies.series({ venue: 'deribit', type: 'option_trade' });
  const b = tallies.series({ venue: 'okx', type: 'option_trade' });
  assert.equal(tallies.series({ type: 'option_trade', venue: 'deribit' }), a, 'one series per label set, whatever the key order');
  for (let i = 0; i < 1000; i++) a.inc();
  a.inc(5);
  b.inc(2);
  assert.match(await registry.metrics(), /t_frames_total\{venue="deribit",type="option_trade"\} 1005\n/);
  assert.match(await registry.metrics(), /t_frames_total\{venue="okx",type="option_trade"\} 2\n/, 'a second read does not count twice');
  b.inc(3);
  tallies.counter.inc({ venue: 'okx', type: 'option_trade' }, 10);
  const json = await registry.getMetricsAsJSON();
  const values = json.find((m) => m.name === 't_frames_total')?.values.map((v) => [v.labels['venue'], v.value]);
  assert.deepEqual(values, [
    ['deribit', 1005],
    ['okx', 15],
  ]);
});
