import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

const root = new URL('../../', import.meta.url).pathname;
function gex(args: readonly string[], input?: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('gex --help lists the commands and every setting with its default', () => {
  const r = gex(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Usage: gex <command>/);
  assert.match(r.stdout, /levels --chain FILE/);
  assert.match(r.stdout, /--kafka-brokers\s+KAFKA_BROKERS\s+\(unset\)/);
  assert.match(r.stdout, /--port\s+PORT\s+8080/);
});

test('the roles are named after their folders (ingest, processors, query-api); the earlier names process and api still answer', () => {
  const r = gex(['--help']);
  assert.match(r.stdout, /^ {2}processors \(or process\)\s+Processors:/m);
  assert.match(r.stdout, /^ {2}query-api \(or api\)\s+The \/v2 API\./m);
  for (const name of ['processors', 'process', 'query-api', 'api']) assert.equal(gex([name, '--help']).code, 0, name);
  assert.equal(gex(['processes', '--help']).code, 2);
});

test('an unknown command or an invalid setting exits 2 with the reason', () => {
  const u = gex(['frobnicate']);
  assert.equal(u.code, 2);
  assert.match(u.stderr, /unknown command 'frobnicate'/);
  const bad = gex(['migrate', '--port', 'x']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /PORT \/ --port = "x"/);
});

test('gex levels --chain prints the methodology §11.5 levels', () => {
  const r = gex(['levels', '--chain', 'test/fixtures/chain-synthetic-11-5.json', '--model', 'std']);
  assert.equal(r.code, 0, r.stderr);
  const data = JSON.parse(r.stdout) as {
    all_expiry: Record<string, number | null>;
    positioning: string;
    max_pain: { strike: number; value: number };
    spot: { spot_price: number; perps_price: number };
    gamma_flip_zones: unknown[];
  };
  assert.equal(data.positioning, 'std');
  assert.equal(data.all_expiry['call_resistance'], 105000);
  assert.equal(data.all_expiry['call_wall_2'], 100000);
  assert.equal(data.all_expiry['put_support'], 95000);
  assert.equal(data.all_expiry['put_wall_3'], 90000);
  assert.ok(Math.abs((data.all_expiry['hvl'] as number) - 98988.13) < 0.01);
  assert.deepEqual(data.max_pain, { strike: 100000, value: 5_800_000 });
  assert.deepEqual(data.spot, { spot_price: 100000, perps_price: 100050 });
  assert.equal(data.gamma_flip_zones.length, 1);
});

test('gex levels names every problem of an invalid chain file', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gex-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'bad.json');
  writeFileSync(file, JSON.stringify({ symbol: 'DOGEUSDT', now: 'yesterday', spot: -1, instruments: [{ venue: 'deribit' }] }));
  const r = gex(['levels', '--chain', file]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /invalid chain file/);
  assert.match(r.stderr, /symbol/);
  assert.match(r.stderr, /now/);
  assert.match(r.stderr, /spot/);
  assert.equal(gex(['levels']).code, 2);
  assert.equal(gex(['levels', '--chain', file, '--model', 'naive']).code, 2);
});

test('gex parse: frames on stdin -> normalized JSON lines on stdout, dead-letter reasons on stderr', () => {
  // Recorded Deribit option trade (crypto-crawler-rs tests, see ingest/venues/fixtures/README.md), then a truncated frame.
  const frame =
    '{"jsonrpc":"2.0","method":"subscription","params":{"channel":"trades.option.any.raw","data":[{"trade_seq":1706,"trade_id":"137488100","timestamp":1616321732986,"tick_direction":0,"price":0.007,"mark_price":0.00670817,"iv":78.44,"instrument_name":"BTC-26MAR21-62000-C","index_price":56151.63,"direction":"buy","amount":0.1}]}}';
  const r = gex(['parse', '--venue', 'deribit'], `${frame}\n{"jsonrpc":"2.0","method":"subscr\n`);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1);
  const e = JSON.parse(lines[0] as string) as { type: string; event: Record<string, unknown> };
  assert.equal(e.type, 'option_trade');
  assert.equal(e.event['symbol'], 'BTCUSDT');
  assert.equal(e.event['iv'], 0.7844);
  assert.equal(e.event['size'], 0.1);
  assert.equal(e.event['side'], 'buy');
  assert.ok(Math.abs((e.event['premiumUsd'] as number) - 0.007 * 56151.63 * 0.1) < 1e-9);
  assert.match(r.stderr, /line 2: malformed json/);
  assert.match(r.stderr, /"deadLetters":1/);
  assert.equal(gex(['parse', '--venue', 'nasdaq'], '').code, 2);
});
