// The Node lines the project supports, and what says so: package.json `engines`, the Node version .ci/run pins for
// the full suite, the README. npm warns EBADENGINE at `npm ci` for any installed package whose own `engines` refuses
// the running Node; here every package of the lock file is checked against the lowest release of each line that
// `engines` admits and against the pinned CI version, so an engine warning shows up as a failing test, on any line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const read = (path: string): string => readFileSync(ROOT + path, 'utf8');

interface LockPackage {
  version?: string;
  engines?: { node?: string } | string[];
}
const manifest = JSON.parse(read('package.json')) as { engines: { node: string } };
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockPackage> };
const engines = manifest.engines.node;

/** A package's `engines.node` range, if it declares one (a few old packages give `engines` as an array of strings). */
const nodeRange = (pkg: LockPackage | undefined): string | undefined =>
  pkg?.engines && !Array.isArray(pkg.engines) ? pkg.engines.node : undefined;

/** The version of Node that .ci/run installs for the full suite (NODE_LTS=x.y.z). */
function ciNodeVersion(): string {
  const pinned = /^NODE_LTS=(\d+\.\d+\.\d+)$/m.exec(read('.ci/run'))?.[1];
  assert.ok(pinned, '.ci/run pins no NODE_LTS=x.y.z');
  return pinned;
}

/** The lowest release of each line `engines` admits: "^20.19.0 || ^22.13.0 || >=24" -> 20.19.0, 22.13.0, 24.0.0. */
function lowestReleases(range: string): string[] {
  return new semver.Range(range).set.map((comparators) => {
    const lowest = semver.minVersion(comparators.map((c) => c.value).join(' '));
    assert.ok(lowest, `no version satisfies ${range}`);
    return lowest.version;
  });
}

test('engines admits the Node running the tests and the Node .ci/run installs for the full suite', () => {
  assert.ok(semver.satisfies(process.version, engines), `${process.version} is outside engines ${engines}`);
  const ci = ciNodeVersion();
  assert.ok(semver.satisfies(ci, engines), `CI's Node ${ci} is outside engines ${engines}`);
  assert.equal(nodeRange(lock.packages['']), engines, 'package-lock.json is stale: regenerate it with npm install');
});

test('every installed package accepts every Node line engines admits (npm ci prints no EBADENGINE)', () => {
  const versions = [...lowestReleases(engines), ciNodeVersion()];
  assert.ok(
    versions.some((v) => v.startsWith('20.')),
    `engines ${engines} drops Node 20, the machine's Node`,
  );
  const refused: string[] = [];
  let checked = 0;
  for (const [path, pkg] of Object.entries(lock.packages)) {
    const wanted = nodeRange(pkg);
    if (!path || !wanted) continue;
    checked++;
    for (const v of versions) {
      if (!semver.satisfies(v, wanted))
        refused.push(`${path.replace(/^.*node_modules\//, '')}@${pkg.version} wants node ${wanted}, not ${v}`);
    }
  }
  assert.ok(checked > 200, `only ${checked} packages declare engines`);
  assert.deepEqual(refused, []);
});

test('the README names the supported lines and the Node version CI runs the full suite on', () => {
  const section = /## The two commands\n([\s\S]*?)\n## /.exec(read('README.md'))?.[1] ?? '';
  assert.ok(section.includes(`Node ${ciNodeVersion()}`), `README "The two commands" does not name Node ${ciNodeVersion()}`);
  assert.ok(section.includes(`\`${engines}\``), `README "The two commands" does not quote engines ${engines}`);
});
