import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { deadLetter, drop, ok, runStep, type PipelineStep } from './step-runner.ts';
import { stepMetrics } from './step-metrics.ts';

/** A pino logger whose JSON lines are collected, to read the runner's structured fields. */
function capturingLog(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'debug' }, sink), lines };
}

async function counter(
  metric: { get(): Promise<{ values: { labels: Record<string, unknown>; value: number }[] }> },
  labels: Record<string, string>,
): Promise<number> {
  const m = await metric.get();
  return m.values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
}

async function durationCount(step: string, outcome: string): Promise<number> {
  const m = await stepMetrics.duration.get();
  return (
    m.values.find(
      (v) => v.metricName === 'gex_pipeline_step_duration_seconds_count' && v.labels['step'] === step && v.labels['outcome'] === outcome,
    )?.value ?? 0
  );
}

let seq = 0;
const uniqueName = (what: string): string => `test.${what}.${++seq}`;

describe('step runner', () => {
  test('retries with the shared jittered backoff, then ok: hand-computed delays, counters, durations', async () => {
    const { log, lines } = capturingLog();
    const name = uniqueName('retry');
    const randoms = [0.5, 0.75];
    let calls = 0;
    const step: PipelineStep<number, number> = {
      name,
      log,
      retry: { baseMs: 40, maxMs: 1_000 },
      random: () => randoms.shift() ?? 0,
      context: (n) => ({ input: n }),
      run: async (n) => {
        calls++;
        if (calls < 3) throw new Error(`boom ${calls}`);
        return ok(n * 2);
      },
    };
    const t0 = performance.now();
    const r = await runStep(step, 21);
    const elapsed = performance.now() - t0;
    assert.deepEqual(r, { kind: 'ok', value: 42 });
    assert.equal(calls, 3);
    // delay(attempt 0) = floor(0.5 x 40) = 20; delay(attempt 1) = floor(0.75 x 80) = 60
    const retries = lines.filter((l) => l['msg'] === 'step failed; retrying');
    assert.deepEqual(
      retries.map((l) => [l['retryInMs'], l['attempts'], l['err'], l['input'], l['step']]),
      [
        [20, 1, 'boom 1', 21, name],
        [60, 2, 'boom 2', 21, name],
      ],
    );
    assert.ok(elapsed >= 78, `waited the two delays (${elapsed} ms)`);
    assert.equal(await counter(stepMetrics.retries, { step: name }), 2);
    assert.equal(await durationCount(name, 'retry'), 2);
    assert.equal(await durationCount(name, 'ok'), 1);
  });

  test('retries stop at maxAttempts: the last error is thrown and the attempt counted as failed', async () => {
    const { log } = capturingLog();
    const name = uniqueName('exhausted');
    let calls = 0;
    const step: PipelineStep<null, never> = {
      name,
      log,
      retry: { baseMs: 1, maxMs: 1, maxAttempts: 3 },
      run: async () => {
        calls++;
        throw new Error(`down ${calls}`);
      },
    };
    await assert.rejects(runStep(step, null), /down 3/);
    assert.equal(calls, 3);
    assert.equal(await durationCount(name, 'retry'), 2);
    assert.equal(await durationCount(name, 'failed'), 1);
  });

  test('classification: skip -> drop result + counter; dead_letter -> hook + counter; fail -> thrown at once', async () => {
    const { log } = capturingLog();
    const seen: unknown[][] = [];
    const attemptsSeen: number[] = [];
    const name = uniqueName('classify');
    const make = (cls: 'skip' | 'dead_letter' | 'fail'): PipelineStep<string, string> => ({
      name,
      log,
      classify: (_err, attempts) => {
        attemptsSeen.push(attempts);
        return cls;
      },
      onDeadLetter: (input, reason, error) => {
        seen.push([input, reason, (error as Error).message]);
      },
      run: async (input) => {
        throw new Error(`bad ${input}`);
      },
    });
    assert.deepEqual(await runStep(make('skip'), 'a'), { kind: 'drop', reason: 'bad a' });
    const dl = await runStep(make('dead_letter'), 'b');
    assert.equal(dl.kind, 'dead_letter');
    assert.deepEqual(seen, [['b', 'bad b', 'bad b']]);
    await assert.rejects(runStep(make('fail'), 'c'), /bad c/);
    assert.deepEqual(attemptsSeen, [1, 1, 1], 'no retry for skip, dead_letter or fail');
    assert.equal(await counter(stepMetrics.skipped, { step: name }), 1);
    assert.equal(await counter(stepMetrics.deadLetters, { step: name }), 1);
    assert.equal(await durationCount(name, 'failed'), 1);
  });

  test('tagged results returned by the step are counted the same way', async () => {
    const name = uniqueName('tagged');
    const letters: string[] = [];
    const step: PipelineStep<number, number> = {
      name,
      onDeadLetter: (_i, reason) => {
        letters.push(reason);
      },
      run: async (n) => (n === 0 ? drop('zero') : n < 0 ? deadLetter('negative') : ok(n)),
    };
    assert.deepEqual(await runStep(step, 0), { kind: 'drop', reason: 'zero' });
    assert.deepEqual(await runStep(step, -1), { kind: 'dead_letter', reason: 'negative', error: undefined });
    assert.deepEqual(await runStep(step, 5), { kind: 'ok', value: 5 });
    assert.deepEqual(letters, ['negative']);
    assert.deepEqual(
      [await durationCount(name, 'drop'), await durationCount(name, 'dead_letter'), await durationCount(name, 'ok')],
      [1, 1, 1],
    );
  });

  test('an abort ends the backoff at once and throws the last error; an aborted signal allows no retry', async () => {
    const { log } = capturingLog();
    let calls = 0;
    const step: PipelineStep<null, never> = {
      name: uniqueName('abort'),
      log,
      retry: { baseMs: 60_000, maxMs: 60_000 },
      random: () => 0.9,
      run: async () => {
        calls++;
        throw new Error('store down');
      },
    };
    const ctl = new AbortController();
    const t0 = performance.now();
    setTimeout(() => ctl.abort(), 30);
    await assert.rejects(runStep(step, null, ctl.signal), /store down/);
    assert.ok(performance.now() - t0 < 2_000, 'did not wait the 54 s delay');
    assert.equal(calls, 1);
    await assert.rejects(runStep(step, null, ctl.signal), /store down/);
    assert.equal(calls, 2, 'one attempt, no retry once aborted');
  });
});
