import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pcrSeries } from './pcr.ts';

const D = 86_400_000;

test('pcr: Σ put OI / Σ call OI per point, venue breakdown, daily = last point of each UTC day', () => {
  const cells = [
    { t: 0, venue: 'okx', callOi: 100, putOi: 50 },
    { t: 0, venue: 'deribit', callOi: 300, putOi: 350 }, // (50 + 350) / (100 + 300) = 1
    { t: 300_000, venue: 'deribit', callOi: 200, putOi: 100 }, // 0.5
    { t: D + 600_000, venue: 'deribit', callOi: 0, putOi: 10 }, // no call OI → null
  ];
  const intraday = pcrSeries(cells, { daily: false, breakdown: true });
  assert.deepEqual(intraday[0], {
    t: 0,
    ratio: 1,
    call_oi: 400,
    put_oi: 400,
    exchange_breakdown: [
      { venue: 'deribit', call_oi: 300, put_oi: 350 },
      { venue: 'okx', call_oi: 100, put_oi: 50 },
    ],
  });
  assert.deepEqual(
    intraday.map((p) => p.ratio),
    [1, 0.5, null],
  );
  const daily = pcrSeries(cells, { daily: true, breakdown: false });
  assert.deepEqual(daily, [
    { t: 300_000, ratio: 0.5, call_oi: 200, put_oi: 100 },
    { t: D + 600_000, ratio: null, call_oi: 0, put_oi: 10 },
  ]);
});
