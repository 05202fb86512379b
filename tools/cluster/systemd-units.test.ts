/**
 * ops/systemd: every `gex <command>` a unit starts is a command of the CLI, every variable of the GEX environment
 * file examples is a setting of platform/settings.ts, each unit's EnvironmentFile has an example, and the exit code
 * the units do not restart on (RestartPreventExitStatus) is the one an invalid setting gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '#app/cli/commands/index.ts';
import { SETTINGS, type SettingSpec } from '#platform/settings.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = join(root, 'ops/systemd');
const files = readdirSync(dir);
const units = files.filter((f) => f.endsWith('.service'));
const gexUnits = units.filter((f) => f.startsWith('gex-'));
const read = (f: string): string => readFileSync(join(dir, f), 'utf8');
const directives = (unit: string, key: string): string[] =>
  read(unit)
    .split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));

test('a unit per role: each starts a gex command that exists, restarts on failure and reads the shared environment file', () => {
  assert.deepEqual(gexUnits.sort(), ['gex-ingest.service', 'gex-processors.service', 'gex-query-api.service']);
  const names = new Set(COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]));
  for (const unit of gexUnits) {
    const [exec, ...more] = directives(unit, 'ExecStart');
    assert.equal(more.length, 0, `${unit}: one ExecStart`);
    const m = /^\/usr\/bin\/node \/opt\/gex\/bin\/gex\.mjs (\S+)$/.exec(exec ?? '');
    assert.ok(m, `${unit}: ExecStart runs bin/gex.mjs <command>: ${exec}`);
    const command = m[1] as string;
    assert.ok(names.has(command), `${unit}: gex ${command} is a CLI command`);
    assert.equal(unit, `gex-${command}.service`, 'the unit is named after its role');
    assert.deepEqual(directives(unit, 'Restart'), ['on-failure'], `${unit}: Restart=on-failure`);
    assert.deepEqual(directives(unit, 'EnvironmentFile'), ['/etc/gex/gex.env', `-/etc/gex/gex-${command}.env`]);
  }
  assert.ok(existsSync(join(root, 'bin/gex.mjs')));
});

test('every EnvironmentFile has an example in ops/systemd; every variable of the GEX examples is a setting', () => {
  const known = new Set(Object.values(SETTINGS as Record<string, SettingSpec>).map((s) => s.env));
  for (const unit of units) {
    for (const file of directives(unit, 'EnvironmentFile')) {
      const example = `${basename(file.replace(/^-/, ''))}.example`;
      assert.ok(files.includes(example), `${unit}: ${file} has ops/systemd/${example}`);
    }
  }
  const examples = files.filter((f) => f.startsWith('gex') && f.endsWith('.env.example'));
  assert.equal(examples.length, 4);
  for (const f of examples) {
    const vars = read(f)
      .split('\n')
      .map((l) => /^#?([A-Z][A-Z0-9_]*)=/.exec(l)?.[1])
      .filter((v): v is string => v !== undefined);
    assert.ok(vars.length > 0, f);
    for (const v of vars) assert.ok(known.has(v), `${f}: ${v} is a setting of platform/settings.ts`);
  }
});

test('an invalid setting exits 2, the status the units do not restart on', () => {
  for (const unit of gexUnits) assert.deepEqual(directives(unit, 'RestartPreventExitStatus'), ['2'], unit);
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/main.ts', 'ingest'], {
    cwd: root,
    env: { ...process.env, PORT: 'not-a-port' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /PORT/);
});
