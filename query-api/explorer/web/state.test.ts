import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { alignStep, DEFAULT_STATE, formatState, gexParams, indexOf, instantAt, parseState, STEP_MS, timeline } from './state.ts';
import { explainFailure } from './messages.ts';

describe('explorer URL state', () => {
  test('round trip: every field survives format -> parse', () => {
    const s = {
      symbol: 'ETHUSDT',
      venues: ['deribit', 'okx'],
      model: 'std',
      at: Date.UTC(2026, 10, 25, 10, 0, 30),
      studyDays: 90,
    } as const;
    const q = formatState(s);
    assert.equal(q, '?symbol=ETHUSDT&model=std&venues=deribit,okx&at=2026-11-25T10:00:30.000Z&study_days=90');
    assert.deepEqual(parseState(q), s);
    assert.equal(formatState(DEFAULT_STATE), '?symbol=BTCUSDT&model=flow&study_days=30');
  });
  test('defaults for missing or unknown values; venues canonical, deduplicated, case-insensitive; `at` floored to the 30 s grid', () => {
    assert.deepEqual(parseState(''), DEFAULT_STATE);
    assert.deepEqual(parseState('?symbol=DOGEUSDT&model=gamma&venues=nowhere&at=yesterday&study_days=14'), DEFAULT_STATE);
    assert.equal(parseState('?study_days=7').studyDays, 7);
    const s = parseState('?symbol=btcusdt&venues=OKX,%20deribit,okx,ftx&at=2026-11-25T10:00:59.999Z');
    assert.deepEqual(s.venues, ['deribit', 'okx']);
    assert.equal(s.symbol, 'BTCUSDT');
    assert.equal(s.at, Date.UTC(2026, 10, 25, 10, 0, 30));
  });
  test('GEX query parameters: exchanges only when filtered, as_of only in replay', () => {
    assert.equal(gexParams(DEFAULT_STATE).toString(), 'symbol=BTCUSDT&positioning=flow');
    const q = gexParams({ symbol: 'SOLUSDT', venues: ['bybit'], model: 'std', at: 60_000, studyDays: 30 });
    assert.equal(q.toString(), 'symbol=SOLUSDT&positioning=std&exchanges=bybit&as_of=1970-01-01T00%3A01%3A00.000Z');
  });
});

describe('replay timeline', () => {
  const now = Date.UTC(2026, 10, 25, 12, 0, 17);
  const t = timeline(now);
  test('24 h at 30 s: 2,881 positions, the last one the grid instant at or before now', () => {
    assert.equal(t.count, 2881);
    assert.equal(instantAt(t, t.count - 1), Date.UTC(2026, 10, 25, 12, 0, 0));
    assert.equal(instantAt(t, 0), Date.UTC(2026, 10, 24, 12, 0, 0));
    assert.equal(instantAt(t, 1) - instantAt(t, 0), STEP_MS);
  });
  test('positions and instants invert; out-of-range clamps', () => {
    for (const i of [0, 1, 1440, 2880]) assert.equal(indexOf(t, instantAt(t, i)), i);
    assert.equal(indexOf(t, instantAt(t, 7) + 29_999), 7);
    assert.equal(indexOf(t, 0), 0);
    assert.equal(indexOf(t, now + 3_600_000), 2880);
    assert.equal(instantAt(t, 99_999), instantAt(t, 2880));
    assert.equal(alignStep(-1), -STEP_MS);
  });
});

describe('refusal messages', () => {
  const f = (status: number, retry: number | null = null, message: string | null = null) =>
    explainFailure({ status, code: null, message, retryAfterSeconds: retry });
  test('401, 403 and 429 say what happened and what to do', () => {
    assert.match(f(401, null, 'invalid API key'), /^401 Unauthorized: the API key was refused\. .*save it again \(invalid API key\)\.$/);
    assert.match(f(403), /^403 Forbidden: .*Renew or upgrade the plan/);
    assert.match(f(429, 17), /^429 Too many requests: .*Try again in 17 s; pause the replay/);
    assert.match(f(429), /Try again in a moment/);
  });
  test('unreachable, 5xx and others', () => {
    assert.match(f(0, null, 'Failed to fetch'), /cannot be reached \(Failed to fetch\)/);
    assert.match(f(503), /temporarily unavailable \(503\)/);
    assert.equal(f(404, null, 'no GEX snapshot'), 'No data (no GEX snapshot).');
    assert.equal(f(418), 'Request failed (418).');
  });
});
