import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const root = new URL('../../', import.meta.url).pathname;

/** A process that installs the warning policy, then runs `body`; its stderr split into JSON lines and other text. */
function run(body: string): { json: Record<string, unknown>[]; text: string[] } {
  const script = `
    import { logProcessWarnings } from './app/runtime/warnings.ts';
    import { childLogger } from './platform/log.ts';
    logProcessWarnings(childLogger('runtime'));
    ${body}
    setTimeout(() => {}, 100);
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, LOG_FORMAT: 'json', LOG_LEVEL: 'info' },
  });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  return {
    json: lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>),
    text: lines.filter((l) => !l.startsWith('{')),
  };
}

test('a process warning is one structured warn line (name, message, stack), not Node raw stderr text', () => {
  const r = run("process.emitWarning('the old way', 'DeprecationWarning');");
  assert.deepEqual(r.text, []);
  assert.equal(r.json.length, 1);
  assert.equal(r.json[0]?.['level'], 40);
  assert.equal(r.json[0]?.['component'], 'runtime');
  assert.equal((r.json[0]?.['warning'] as { name: string }).name, 'DeprecationWarning');
  assert.equal(r.json[0]?.['msg'], 'process warning: DeprecationWarning: the old way');
});

test("kafkajs's negative request-queue timer (kafkajs#1751) is dropped; a negative timer of any other code is logged", () => {
  const kafkajs = `
    const w = new Error('-1795723316547 is a negative number.');
    w.name = 'TimeoutNegativeWarning';
    w.stack = w.name + ': ' + w.message + '\\n    at setTimeout (node:timers:120:19)\\n    at RequestQueue.scheduleCheckPendingRequests (/app/node_modules/kafkajs/src/network/requestQueue/index.js:317:37)';
    process.emitWarning(w);
  `;
  assert.deepEqual(run(kafkajs), { json: [], text: [] });
  const ours = run("const w = new Error('-5 is a negative number.'); w.name = 'TimeoutNegativeWarning'; process.emitWarning(w);");
  assert.equal(onlyWarning(ours.json).name, 'TimeoutNegativeWarning');
  assert.deepEqual(ours.text, []);
});

function onlyWarning(json: Record<string, unknown>[]): { name: string } {
  assert.equal(json.length, 1);
  return json[0]?.['warning'] as { name: string };
}
