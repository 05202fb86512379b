// Runs test files with node's test runner in the order given (run-tests.mjs starts it with `--import tsx`, which every
// file's process inherits). `node --test a b c` sorts its files by path before it starts them, so the longest files
// (test-files.mjs LONGEST_FIRST) would start wherever their path sorts; node:test's `run({ files })` keeps the order.
// Output: TAP on stdout as the run goes, then the slowest files (file-times-reporter.mjs) and every failure again
// (failures-reporter.mjs). Exit code 1 when a test failed (or was cancelled by its timeout).
//
// Usage: node --import tsx tools/test-runner.mjs <concurrency> <timeout ms per test> <file>...
import { resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import failuresReporter from './failures-reporter.mjs';
import fileTimesReporter from './file-times-reporter.mjs';

const [concurrency, timeout, ...files] = process.argv.slice(2);
if (!(Number(concurrency) >= 1) || !(Number(timeout) > 0) || files.length === 0) {
  console.error('usage: test-runner.mjs <concurrency> <timeout ms> <file>...');
  process.exit(2);
}

const events = run({ files: files.map((f) => resolve(f)), concurrency: Number(concurrency), timeout: Number(timeout) });
events.on('test:fail', (e) => {
  if (!e.todo) process.exitCode = 1;
});
// Three reporters over one event stream: TAP as it runs, the file times and the failures once the TAP is written.
const toTap = new PassThrough({ objectMode: true });
events.pipe(toTap);
/** @param {(source: AsyncIterable<any>) => AsyncIterable<string>} reporter */
const afterTap = (reporter) => {
  const source = new PassThrough({ objectMode: true });
  events.pipe(source);
  const chunks = [];
  const done = (async () => {
    for await (const chunk of reporter(source)) chunks.push(chunk);
  })();
  return async () => {
    await done;
    return chunks.join('');
  };
};
const times = afterTap(fileTimesReporter);
const failures = afterTap(failuresReporter);
for await (const chunk of tap(toTap)) process.stdout.write(chunk);
process.stdout.write(await times());
process.stdout.write(await failures());
