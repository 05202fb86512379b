import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { stripVTControlCharacters } from 'node:util';

/**
 * The log format a role picks for itself (platform/log-format.ts): JSON lines when stderr is a pipe, readable
 * lines plus the ready and status lines (app/runtime/terminal-status.ts) under a pseudo-terminal or LOG_FORMAT=pretty.
 */

const root = new URL('../../', import.meta.url).pathname;
const GEX = ['--import', 'tsx', 'app/cli/main.ts'];
/** The status line comes STATUS_INTERVAL_MS (10 s) after the ready line; 4 s of slack for a busy machine. */
const STATUS_WITHIN_MS = 14_000;
/**
 * A role is up in 5-12 s on an idle 2-core machine (query-api, demo); the waits allow a machine shared with other
 * test runs: the migrations alone took 10 s there, and the demo was not ready within 60 s beside the broker outage
 * test (two brokers and seven processes on the same two cores). Each test takes ~7-25 s here.
 */
const START_WITHIN_MS = 120_000;
const TEST_TIMEOUT_MS = START_WITHIN_MS + STATUS_WITHIN_MS + 10_000;

/** A role on its own data directory and free ports, with LOG_LEVEL and LOG_FORMAT as given (unset when absent). */
function roleEnv(dir: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, PORT: '0', METRICS_PORT: '0', ADMIN_PORT: '0', ...extra };
  if (extra.LOG_LEVEL === undefined) delete env.LOG_LEVEL;
  if (extra.LOG_FORMAT === undefined) delete env.LOG_FORMAT;
  return env;
}

/** Everything the child writes (stdout and stderr as one text, `\r` and colours removed), and waits on it. */
class Output {
  #raw = '';
  readonly #waiters = new Set<() => void>();

  constructor(child: ChildProcess) {
    const take = (chunk: Buffer): void => {
      this.#raw += chunk.toString('utf8');
      for (const w of this.#waiters) w();
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
  }

  get text(): string {
    return stripVTControlCharacters(this.#raw).replace(/\r/g, '');
  }

  /** Resolves with the first match of `pattern` in the output; rejects after `ms`. */
  waitFor(pattern: RegExp, ms: number): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        const m = this.text.match(pattern);
        if (m === null) return;
        this.#waiters.delete(check);
        clearTimeout(timer);
        resolve(m);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`no ${pattern} within ${ms} ms; output:\n${this.text}`));
      }, ms);
      this.#waiters.add(check);
      check();
    });
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

test(
  'stderr piped, LOG_FORMAT unset: JSON lines at info, no ready or status line (what log shippers read)',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gex-terminal-json-'));
    const child = spawn(process.execPath, [...GEX, 'query-api'], { cwd: root, env: roleEnv(dir, {}), stdio: ['ignore', 'pipe', 'pipe'] });
    const out = new Output(child);
    try {
      await out.waitFor(/"msg":"api listening"/, START_WITHIN_MS);
      const lines = out.text.split('\n').filter((l) => l !== '');
      for (const line of lines) {
        const record = JSON.parse(line) as { level?: unknown; time?: unknown; msg?: unknown };
        assert.equal(typeof record.level, 'number', line);
        assert.match(String(record.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, line);
        assert.equal(typeof record.msg, 'string', line);
      }
      assert.ok(
        lines.some((l) => l.includes('"level":30') && l.includes('"msg":"store ready"')),
        'info lines at the default level',
      );
      assert.doesNotMatch(out.text, /READY|STATUS/);
    } finally {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'LOG_FORMAT=pretty on a pipe, LOG_LEVEL=info: readable lines at info, the ready line, a status line 10 s later',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gex-terminal-pretty-'));
    const env = roleEnv(dir, { LOG_FORMAT: 'pretty', LOG_LEVEL: 'info' });
    const child = spawn(process.execPath, [...GEX, 'query-api'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = new Output(child);
    try {
      const ready = await out.waitFor(/^\d\d:\d\d:\d\d\.\d{3} READY {2}(.*)$/m, START_WITHIN_MS);
      assert.match(
        ready[1] ?? '',
        /^query-api running · API http:\/\/127\.0\.0\.1:\d+\/v2 · metrics http:\/\/127\.0\.0\.1:\d+\/metrics · status every 10 s · log level info$/,
      );
      assert.match(out.text, /^\d\d:\d\d:\d\d\.\d{3} INFO {3}runtime: store ready store=embedded applied=\["001_raw_tables",/m);
      assert.match(out.text, /^\d\d:\d\d:\d\d\.\d{3} INFO {3}api: api listening /m);
      assert.doesNotMatch(out.text, /^\{/m, 'no JSON line');
      const status = await out.waitFor(/^\d\d:\d\d:\d\d\.\d{3} STATUS (.*)$/m, STATUS_WITHIN_MS);
      assert.match(status[1] ?? '', /^(bus lag \d+ · )?api \d+(\.\d)? req\/s$/, 'the API role has no ingest rate and no snapshot ages');
    } finally {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'npm run demo on a terminal (script(1) pseudo-terminal): banner, ready line, no JSON, a status line within ~12 s',
  { timeout: TEST_TIMEOUT_MS },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gex-terminal-demo-'));
    const command = `exec '${process.execPath}' ${GEX.join(' ')} demo`;
    const env = roleEnv(dir, { CLICKHOUSE_HTTP_PORT: '0' });
    const child = spawn('script', ['-qfc', command, '/dev/null'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = new Output(child);
    try {
      await out.waitFor(
        / READY {2}ingest \+ processors \+ query-api running · API http:\/\/127\.0\.0\.1:\d+\/v2 .* · log level warn \(LOG_LEVEL=info for more\)$/m,
        START_WITHIN_MS,
      );
      assert.match(out.text, /^API key \(user demo, plan bundle_monthly = pro\): gex_\w+$/m, 'the printed key stays visible');
      assert.match(out.text, /^ {2}curl -H 'X-API-Key: gex_\w+' 'http:\/\/127\.0\.0\.1:\d+\/v2\/meta'$/m);
      const status = await out.waitFor(/ STATUS (.*)$/m, STATUS_WITHIN_MS);
      const parts = /^ingest (\d+(?:\.\d)?) ev\/s · bus lag \d+ · snapshot age (.*) · api \d+(?:\.\d)? req\/s$/.exec(status[1] ?? '');
      assert.ok(parts !== null, `status line: ${status[1]}`);
      assert.ok(Number(parts[1]) > 0, 'the sandbox market feeds events');
      assert.match(parts[2] ?? '', /^BTCUSDT \S+ ETHUSDT \S+ SOLUSDT \S+ HYPEUSDT \S+$/);
      assert.doesNotMatch(out.text, /^\{"level"/m, 'no JSON line on a terminal');
      assert.doesNotMatch(out.text, / INFO {3}/, 'info chatter hidden at the calm default level');
    } finally {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
