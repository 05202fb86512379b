/**
 * The dependency rule of the repository, as data: each top-level folder lists the folders it may import from.
 * Every other import between folders is a violation; so is an import cycle, a store/bus/I/O import in the pure
 * analytics library, and a relative import that resolves to no file.
 *
 * The product, bottom to top (each may import only what is below it):
 *
 *   schemas → platform → bus, clickhouse → ingest → processors → query-api → app
 *
 * Beside it: `sandbox` (the simulated market, its venue servers and the history generator) sits above the
 * connectors and below the application entry, which composes it for `gex demo` and `gex backfill --sandbox`;
 * `tools` (architecture check, chaos, soak, observability checks, the test runner), `bench` and `test` sit on top
 * and nothing imports them.
 *
 * Enforced by dependency-cruiser with the rule set built here (`npm run arch`, and tools/architecture/layers.test.ts
 * in `npm test`).
 */
import type { IConfiguration, IForbiddenRuleType } from 'dependency-cruiser';

export interface Folder {
  readonly name: string;
  /** Path regex (relative to the repository root) of the modules in the folder. */
  readonly path: string;
  /** The folders (by name) its modules may import from, besides itself. */
  readonly uses: readonly string[];
  readonly why: string;
}

const PRODUCT_BELOW_APP = ['schemas', 'platform', 'bus', 'clickhouse', 'ingest', 'processors', 'query-api'];
const EVERYTHING_BELOW_TOOLS = [...PRODUCT_BELOW_APP, 'sandbox', 'app'];

export const FOLDERS: readonly Folder[] = [
  { name: 'schemas', path: '^schemas/', uses: [], why: 'event families, Avro schemas and codec: the vocabulary every folder shares' },
  { name: 'platform', path: '^platform/', uses: ['schemas'], why: 'logging, metrics registry, settings, step runner and retry policy' },
  { name: 'bus', path: '^bus/', uses: ['schemas', 'platform'], why: 'the bus interface and its Kafka and in-process implementations' },
  {
    name: 'clickhouse',
    path: '^clickhouse/',
    uses: ['schemas', 'platform'],
    why: 'the store client, migrations, row mappers, SQL helpers',
  },
  {
    name: 'ingest',
    path: '^ingest/',
    uses: ['schemas', 'platform', 'bus', 'clickhouse'],
    why: 'venue connectors, socket and REST transport, the ingest pipeline, reference-file loaders',
  },
  {
    name: 'processors',
    path: '^processors/',
    uses: ['schemas', 'platform', 'bus', 'clickhouse'],
    why: 'stateful processors and the pure analytics library: consume the bus, write the store',
  },
  {
    name: 'query-api',
    path: '^query-api/',
    uses: [...PRODUCT_BELOW_APP.slice(0, -1)],
    why: 'the HTTP API, its WebSocket feed and read model',
  },
  {
    name: 'sandbox',
    path: '^sandbox/',
    uses: ['schemas', 'platform', 'bus', 'clickhouse', 'ingest', 'processors'],
    why: 'the simulated market, its venue servers and the history generator (not part of the product)',
  },
  {
    name: 'app',
    path: '^(app|bin)/',
    uses: [...PRODUCT_BELOW_APP, 'sandbox'],
    why: 'the application entry: CLI commands and role composition',
  },
  {
    name: 'tools',
    path: '^tools/',
    uses: EVERYTHING_BELOW_TOOLS,
    why: 'development harnesses: architecture check, chaos, soak, observability, test runner',
  },
  { name: 'bench', path: '^bench/', uses: EVERYTHING_BELOW_TOOLS, why: 'benchmarks' },
  { name: 'test', path: '^test/', uses: EVERYTHING_BELOW_TOOLS, why: 'end-to-end, integration and browser tests' },
  { name: 'ops', path: '^ops/', uses: [], why: 'deployment configuration: Kafka runner, Prometheus, Grafana' },
];

/** Analytics are pure: no store, no bus, no I/O module. */
const PURE = '^processors/analytics/';
/** Where test code lives: test files, testing/ folders next to what they support, and the development folders. */
const TEST_SUPPORT = '\\.test\\.ts$|(^|/)testing/|^(tools|bench|test)/';
const TEST_LIBRARIES = '^(node:)?(test|assert|assert/strict)$';
const IO_MODULES = '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|worker_threads|dgram|dns|tls|cluster)$';

export function folderRules(folders: readonly Folder[] = FOLDERS): IForbiddenRuleType[] {
  const rules: IForbiddenRuleType[] = folders.map((folder) => {
    const forbidden = folders.filter((other) => other.name !== folder.name && !folder.uses.includes(other.name));
    return {
      name: `folder-${folder.name}`,
      comment: `${folder.name} (${folder.why}) imports only from ${folder.uses.length > 0 ? folder.uses.join(', ') : 'itself'}`,
      severity: 'error',
      from: { path: folder.path },
      to: { path: forbidden.map((f) => `(${f.path})`).join('|') },
    };
  });
  rules.push(
    { name: 'no-cycles', comment: 'no import cycles', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'analytics-pure-store',
      comment: 'processors/analytics is pure: it imports only schemas and itself',
      severity: 'error',
      from: { path: PURE },
      to: { path: '^(platform|bus|clickhouse|ingest|query-api)/|^processors/(?!analytics/)' },
    },
    {
      name: 'analytics-pure-io',
      comment: 'processors/analytics does no I/O',
      severity: 'error',
      from: { path: PURE, pathNot: '\\.test\\.ts$' },
      to: { dependencyTypes: ['core'], path: IO_MODULES },
    },
    {
      name: 'test-support-in-testing',
      comment: 'only tests, testing/ folders and the development folders import a test library',
      severity: 'error',
      from: { pathNot: TEST_SUPPORT },
      to: { dependencyTypes: ['core'], path: TEST_LIBRARIES },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'every relative import resolves to a file',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, dependencyTypesNot: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'core'] },
    },
  );
  return rules;
}

/** The folders the rule set cruises. */
export const CRUISED = FOLDERS.flatMap((f) => (f.name === 'app' ? ['app', 'bin'] : [f.name]));

export function cruiseConfiguration(folders: readonly Folder[] = FOLDERS): IConfiguration {
  return {
    forbidden: folderRules(folders),
    options: {
      doNotFollow: { path: 'node_modules' },
      exclude: { path: '(^|/)(node_modules|data|lib|target|\\.tmp)/' },
      tsPreCompilationDeps: true,
      combinedDependencies: false,
      moduleSystems: ['es6', 'cjs'],
      enhancedResolveOptions: {
        extensions: ['.ts', '.mjs', '.js', '.json'],
        exportsFields: ['exports'],
        conditionNames: ['import', 'require', 'node', 'default'],
        mainFields: ['module', 'main', 'types'],
      },
    },
  };
}
