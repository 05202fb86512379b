// A node:test reporter that prints nothing until the run ends, then the files that took longest: the wall time from a
// file's start (its process is spawned: the runner's `test:dequeue` of the file) to its end (`test:complete` of the
// file), and the sum of its top-level tests' durations. test-runner.mjs adds it after the TAP, so a CI log shows where
// the suite's time went (what to start first, what to split) without adding up thousands of TAP lines.
import { relative } from 'node:path';

export const SHOWN = 25;

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* fileTimesReporter(source) {
  /** @type {Map<string, { start: number | null, end: number | null, tests: number }>} */
  const files = new Map();
  for await (const event of source) {
    const path = event.data?.file;
    if (typeof path !== 'string') continue;
    let f = files.get(path);
    if (f === undefined) files.set(path, (f = { start: null, end: null, tests: 0 }));
    // The runner reports each file as a test named by its path; the file's own tests come from its process.
    const isFile = event.data.name === path;
    if (isFile && event.type === 'test:dequeue') f.start = Date.now();
    else if (isFile && event.type === 'test:complete') f.end = Date.now();
    else if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.nesting === 0 && !isFile) {
      f.tests += Number(event.data.details?.duration_ms ?? 0);
    }
  }
  const wall = (f) => (f.start === null || f.end === null ? 0 : f.end - f.start);
  const rows = [...files].sort(([, a], [, b]) => wall(b) - wall(a)).slice(0, SHOWN);
  if (rows.length === 0) return;
  yield `\n# slowest files (wall s from the file's start to its end | sum of top-level tests s), ${rows.length} of ${files.size}:\n`;
  for (const [path, f] of rows) {
    yield `# ${(wall(f) / 1000).toFixed(1).padStart(7)} | ${(f.tests / 1000).toFixed(1).padStart(7)}  ${relative(process.cwd(), path)}\n`;
  }
}
