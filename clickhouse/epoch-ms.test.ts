import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { msColumn, msInstant, msInt64, msNullable, msNullableColumn, msParam, msText, msValue } from './epoch-ms.ts';
import type { Store } from './store.ts';
import { openTempStore } from './testing/temp-store.ts';

test('the helpers write the documented SQL', () => {
  assert.equal(msParam('from'), "fromUnixTimestamp64Milli({from:Int64}, 'UTC')");
  assert.equal(msInstant('toInt64({t0:Int64} + number)'), "fromUnixTimestamp64Milli(toInt64({t0:Int64} + number), 'UTC')");
  assert.equal(msInt64('ts'), 'toUnixTimestamp64Milli(ts)');
  assert.equal(msValue('max(ts)'), 'toFloat64(toUnixTimestamp64Milli(max(ts)))');
  assert.equal(msText('expiry'), 'toString(toUnixTimestamp64Milli(expiry))');
  assert.equal(msColumn('computed_at', 't'), 'toFloat64(toUnixTimestamp64Milli(computed_at)) AS t');
  assert.equal(
    msNullableColumn('prev_computed_at', 'prev_ms'),
    'if(prev_computed_at IS NULL, NULL, toFloat64(toUnixTimestamp64Milli(assumeNotNull(prev_computed_at)))) AS prev_ms',
  );
  assert.equal(
    msNullable('revoked_at', msText),
    'if(revoked_at IS NULL, NULL, toString(toUnixTimestamp64Milli(assumeNotNull(revoked_at))))',
  );
});

describe('round trip through the embedded store', () => {
  let store: Store;
  let dispose: () => Promise<void>;
  before(async () => {
    ({ store, dispose } = await openTempStore());
  });
  after(async () => dispose());

  // 2023-11-14T22:13:20.123Z, 1970-01-01T00:00:00.000Z, 2099-12-31T23:59:59.999Z.
  for (const t of [1_700_000_000_123, 0, 4_102_444_799_999]) {
    test(`epoch ms ${t} in and out, every form`, async () => {
      const rows = await store.query<Record<string, unknown>>(
        `SELECT ${msColumn(msParam('t'), 'num')}, ${msText(msParam('t'))} AS text, ${msInt64(msParam('t'))} AS int,
           toString(${msParam('t')}) AS utc, ${msColumn(msInstant('toInt64({t:Int64} + 1)'), 'next')},
           arrayMap(x -> ${msValue('x')}, [${msParam('t')}]) AS arr,
           ${msNullableColumn(`CAST(${msParam('t')} AS Nullable(DateTime64(3, 'UTC')))`, 'some')},
           ${msNullableColumn("CAST(NULL AS Nullable(DateTime64(3, 'UTC')))", 'none')},
           ${msNullable("CAST(NULL AS Nullable(DateTime64(3, 'UTC')))", msText)} AS none_text`,
        { t },
      );
      const utc = new Date(t).toISOString().replace('T', ' ').replace('Z', '');
      assert.deepEqual(rows, [
        { num: t, text: String(t), int: String(t), utc, next: t + 1, arr: [t], some: t, none: null, none_text: null },
      ]);
    });
  }
});
