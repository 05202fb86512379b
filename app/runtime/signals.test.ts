import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { UNHANDLED_EXIT_CODE } from './signals.ts';

const root = new URL('../../', import.meta.url).pathname;

/** A process that installs the roles' policy, then fails the way a Kafka client can during a broker outage. */
function run(failure: string): { status: number | null; line: Record<string, unknown> | undefined; stdout: string } {
  const script = `
    import { exitOnUnhandled } from './app/runtime/signals.ts';
    import { childLogger } from './platform/log.ts';
    exitOnUnhandled(childLogger('runtime'));
    setInterval(() => process.stdout.write('alive\\n'), 50);
    setTimeout(() => { ${failure} }, 120);
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 20_000,
  });
  const line = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l['level'] === 60);
  return { status: r.status, line, stdout: r.stdout };
}

test('an unhandled rejection: one fatal JSON line with the error, then exit 70 (never half-alive)', () => {
  const r = run("Promise.reject(Object.assign(new Error('Closed connection'), { name: 'KafkaJSConnectionClosedError' }));");
  assert.equal(r.status, UNHANDLED_EXIT_CODE);
  assert.equal(r.line?.['kind'], 'unhandled rejection');
  assert.equal(r.line?.['component'], 'runtime');
  assert.match(String((r.line?.['err'] as { stack?: string } | undefined)?.stack), /KafkaJSConnectionClosedError: Closed connection/);
  assert.ok(r.stdout.includes('alive'), 'it ran until the failure');
});

test('an uncaught exception: the same policy', () => {
  const r = run("throw new TypeError('socket ended');");
  assert.equal(r.status, UNHANDLED_EXIT_CODE);
  assert.equal(r.line?.['kind'], 'uncaught exception');
  assert.match(String(r.line?.['msg']), /exits \(code 70\) so its supervisor restarts it/);
});
