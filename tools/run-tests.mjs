#!/usr/bin/env node
// The README's test command (`npm test`). Finds every *.test.ts (tools/test-files.mjs), makes sure a Kafka broker is there for the
// Kafka suite (*.kafka.test.ts), and runs everything with node's test runner through tsx.
//
// Kafka suite rules:
//   - KAFKA_TEST_BROKERS set            -> use that broker.
//   - else a broker answers on 127.0.0.1:9092 -> use it.
//   - else Java + Maven present         -> start one with ops/kafka/start.sh, stop it at the end.
//   - else, CI=true                     -> fail (the Kafka suite never skips in CI).
//   - else                              -> skip ONLY the Kafka suite, loudly.
// Prometheus suite (*.prometheus.test.ts): promtool + prometheus on PATH, else fail in CI, else skip it loudly.
// Browser suite (*.browser.test.ts): a system Chromium (CHROMIUM_PATH or chromium on PATH), same rule.
//
// Arguments: path substrings select the files whose path contains any of them; `--unit` keeps only the unit tests
// (tools/test-files.mjs isUnitTest: no Kafka, Prometheus or browser suite, nothing under test/e2e/, not the
// command-line tests directly in app/cli/), what CI runs on the machine's Node line; the full suite runs on the newest LTS line.
import { spawnSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import net from 'node:net';
import { findTestFiles, isUnitTest, longestFirst } from './test-files.mjs';

const root = new URL('..', import.meta.url).pathname;

const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const filter = args.filter((a) => a !== '--unit');
let files = findTestFiles(root);
if (unitOnly) files = files.filter(isUnitTest);
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
const kafkaFiles = files.filter((f) => f.endsWith('.kafka.test.ts'));

function probe(hostPort) {
  const [host, port] = hostPort.split(',')[0].split(':');
  return new Promise((resolve) => {
    const s = net.connect({ host, port: Number(port) }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
  });
}
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

const env = { ...process.env };
let startedKafka = false;
if (kafkaFiles.length) {
  const brokers = env.KAFKA_TEST_BROKERS ?? '127.0.0.1:9092';
  if (await probe(brokers)) {
    env.KAFKA_TEST_BROKERS = brokers;
  } else if (!env.KAFKA_TEST_BROKERS && has('java') && has('mvn')) {
    console.error('[test] no broker on 127.0.0.1:9092: starting one with ops/kafka/start.sh');
    const r = spawnSync('bash', [join(root, 'ops/kafka/start.sh')], { stdio: 'inherit', env });
    if (r.status !== 0) {
      console.error('[test] FAILED to start Kafka');
      process.exit(1);
    }
    startedKafka = true;
    env.KAFKA_TEST_BROKERS = '127.0.0.1:9092';
  } else if (env.CI === 'true') {
    console.error(`[test] CI=true and no Kafka broker at ${brokers}: the Kafka suite is required in CI.`);
    process.exit(1);
  } else {
    const bar = '!'.repeat(78);
    console.error(
      `${bar}\n!! SKIPPING THE KAFKA SUITE: no broker at ${brokers} and no Java/Maven to start one.\n!! Skipped files: ${kafkaFiles.join(', ')}\n!! Install Java 17 + Maven (or set KAFKA_TEST_BROKERS) to run it.\n${bar}`,
    );
    files = files.filter((f) => !f.endsWith('.kafka.test.ts'));
  }
}

// Prometheus suite (*.prometheus.test.ts: promtool checks and unit tests, the real scrape test) needs Debian's
// `prometheus` package (promtool + prometheus): required in CI, skipped loudly without it elsewhere.
const promFiles = files.filter((f) => f.endsWith('.prometheus.test.ts'));
if (promFiles.length && !(has('promtool') && has('prometheus'))) {
  if (env.CI === 'true') {
    console.error(
      '[test] CI=true and no promtool/prometheus on PATH: the Prometheus suite is required in CI (apt-get install prometheus).',
    );
    process.exit(1);
  }
  const bar = '!'.repeat(78);
  console.error(
    `${bar}\n!! SKIPPING THE PROMETHEUS SUITE: promtool/prometheus not on PATH.\n!! Skipped files: ${promFiles.join(', ')}\n!! Install Debian's prometheus package to run it.\n${bar}`,
  );
  files = files.filter((f) => !f.endsWith('.prometheus.test.ts'));
}

// Browser suite (*.browser.test.ts: the web explorer in a real headless Chromium via puppeteer-core) needs a
// system Chromium (Debian's `chromium`, or CHROMIUM_PATH): required in CI, skipped loudly without it elsewhere.
const browserFiles = files.filter((f) => f.endsWith('.browser.test.ts'));
const chromium =
  env.CHROMIUM_PATH ??
  ['chromium', 'chromium-browser', 'google-chrome-stable']
    .map((c) =>
      spawnSync('sh', ['-c', `command -v ${c}`])
        .stdout?.toString()
        .trim(),
    )
    .find((p) => p);
if (browserFiles.length && chromium) env.CHROMIUM_PATH = chromium;
if (browserFiles.length && !chromium) {
  if (env.CI === 'true') {
    console.error(
      '[test] CI=true and no Chromium (chromium on PATH or CHROMIUM_PATH): the browser suite is required in CI (apt-get install chromium).',
    );
    process.exit(1);
  }
  const bar = '!'.repeat(78);
  console.error(
    `${bar}\n!! SKIPPING THE BROWSER SUITE: no Chromium on PATH and no CHROMIUM_PATH.\n!! Skipped files: ${browserFiles.join(', ')}\n!! Install Debian's chromium package to run it.\n${bar}`,
  );
  files = files.filter((f) => !f.endsWith('.browser.test.ts'));
}

if (files.length === 0) {
  // tools/test-runner.mjs refuses an empty list (node --test would run its default patterns instead).
  console.error('[test] no test file left to run');
  process.exit(0);
}

const concurrency = env.TEST_CONCURRENCY ?? '2';
// Per test: 15 min (the role outage test sets 25). test/browser/explorer.browser.test.ts waits for the demo's live
// snapshot loop to store a replayable instant with an hvl (up to 5 min; longer on a busy machine).
// tools/test-runner.mjs runs the files in this order (the longest first: tools/test-files.mjs LONGEST_FIRST; `node
// --test` would sort them by path), TAP as it runs, then every failure again at the end (tools/failures-reporter.mjs)
// where a CI log's tail shows it.
const nodeArgs = ['--import', 'tsx', join(root, 'tools/test-runner.mjs'), concurrency, '900000', ...longestFirst(files)];
console.error(`[test] ${files.length} file(s) on Node ${process.version}${unitOnly ? ' (unit tests only)' : ''}`);
const child = spawn(process.execPath, nodeArgs, { stdio: 'inherit', env, cwd: root });
child.on('exit', (code) => {
  if (startedKafka) spawnSync('bash', [join(root, 'ops/kafka/stop.sh')], { stdio: 'inherit', env });
  process.exit(code ?? 1);
});
