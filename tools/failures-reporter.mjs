// A node:test reporter that prints nothing until the run ends, then every failed test again: its file, its name with
// the suites around it, and the first lines of its error. run-tests.mjs adds it next to the TAP reporter, so the end of
// a long CI log names what failed without a search through thousands of TAP lines.
import { relative } from 'node:path';

const errorLines = 12;

/** @param {unknown} error */
function describe(error) {
  if (!(error instanceof Error)) return String(error);
  // node:test wraps a test's own error in an ERR_TEST_FAILURE whose cause is the thrown value.
  const cause = 'cause' in error && error.cause instanceof Error ? error.cause : error;
  return (cause.stack ?? `${cause.name}: ${cause.message}`)
    .split('\n')
    .filter((line) => !/\(node:|at node:/.test(line))
    .slice(0, errorLines)
    .join('\n');
}

/** @param {AsyncIterable<{ type: string, data: any }>} source */
export default async function* failuresReporter(source) {
  /** @type {Map<string, string[]>} per file, the names of the tests started at each nesting level */
  const paths = new Map();
  const failures = [];
  for await (const event of source) {
    const file = typeof event.data?.file === 'string' ? relative(process.cwd(), event.data.file) : '(file unknown)';
    if (!paths.has(file)) paths.set(file, []);
    const path = paths.get(file);
    if (event.type === 'test:start') path[event.data.nesting] = event.data.name;
    if (event.type !== 'test:fail') continue;
    const { name, nesting, details } = event.data;
    // A suite fails when a test in it does; the test itself is the one worth naming.
    if (details?.error?.failureType === 'subtestsFailed') continue;
    failures.push({ file, name: [...path.slice(0, nesting), name].join(' > '), error: describe(details?.error) });
  }
  if (failures.length === 0) return;
  yield `\n# ${failures.length} failed test(s):\n`;
  for (const f of failures) {
    yield `\n# FAILED ${f.file}\n#   ${f.name}\n${f.error.replace(/^/gm, '#     ')}\n`;
  }
}
