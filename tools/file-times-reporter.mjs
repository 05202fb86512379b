// A node:test reporter that prints nothing until the run ends, then the files that took longest: the wall time from a
// file's first report to its last one (as the runner received them; the process start before the first test is not
// in it) and the sum of its top-level tests' durations. test-runner.mjs adds it after the TAP, so a CI log shows where
// the suite's time went (what to start first, what to split) without adding up thousands of TAP lines.
import { relative } from 'node:path';

export const SHOWN = 25;

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* fileTimesReporter(source) {
  /** @type {Map<string, { first: number, last: number, tests: number }>} */
  const files = new Map();
  for await (const event of source) {
    if (typeof event.data?.file !== 'string') continue;
    const file = relative(process.cwd(), event.data.file);
    const now = Date.now();
    let f = files.get(file);
    if (f === undefined) files.set(file, (f = { first: now, last: now, tests: 0 }));
    f.last = now;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0) {
      f.tests += Number(event.data.details?.duration_ms ?? 0);
    }
  }
  if (files.size === 0) return;
  const rows = [...files].sort(([, a], [, b]) => b.last - b.first - (a.last - a.first)).slice(0, SHOWN);
  yield `\n# slowest files (wall s from the first report to the last | sum of top-level tests s), ${rows.length} of ${files.size}:\n`;
  for (const [file, f] of rows) {
    yield `# ${((f.last - f.first) / 1000).toFixed(1).padStart(7)} | ${(f.tests / 1000).toFixed(1).padStart(7)}  ${file}\n`;
  }
}
