/**
 * The layering rule of the repository, as data. A module may import only from its own layer or a layer below it
 * (earlier in LAYERS); nothing imports the roof; no import cycles; pure analytics import no I/O.
 *
 *   schemas  →  ops/floor  →  clickhouse  →  ingest  →  processors  →  query-api  →  roof (ops/roof, bench, test, scripts)
 *
 * Enforced by the dependency-cruiser rule set built here (`npm run arch`, and ops/roof/architecture/layers.test.ts
 * in `npm test`).
 */
import type { IConfiguration, IForbiddenRuleType } from 'dependency-cruiser';

export interface Layer {
  readonly name: string;
  /** Path regex (relative to the repository root) of the modules in the layer. */
  readonly path: string;
  readonly why: string;
}

export const LAYERS: readonly Layer[] = [
  { name: 'schemas', path: '^schemas/', why: 'normalized event types, Avro schemas and codec: the vocabulary every layer shares' },
  { name: 'floor', path: '^ops/floor/', why: 'logging, metrics registry, settings schema, the bus interface and its two implementations' },
  { name: 'clickhouse', path: '^clickhouse/', why: 'the store client, migrations, row mappers, SQL helpers' },
  { name: 'ingest', path: '^ingest/', why: 'connectors, the sandbox market, the backfill ingester: publish events to the bus' },
  { name: 'processors', path: '^processors/', why: 'stateful processors and pure analytics: consume the bus, write the store' },
  { name: 'query-api', path: '^query-api/', why: 'the HTTP API and its read model: reads the store' },
  { name: 'roof', path: '^(ops/roof|bench|test|scripts|bin)/', why: 'CLI commands, role composition, Kafka runner, benches, end-to-end tests: nothing imports them' },
];

/** Analytics are pure: no store, no bus, no I/O module. */
const PURE = '^processors/analytics/';
const IO_MODULES = '^(node:)?(fs|fs/promises|net|http|https|http2|child_process|worker_threads|dgram|dns|tls|cluster)$';

export function layerRules(layers: readonly Layer[] = LAYERS): IForbiddenRuleType[] {
  const rules: IForbiddenRuleType[] = layers.slice(0, -1).map((layer, i) => ({
    name: `layer-${layer.name}`,
    comment: `${layer.name} (${layer.why}) imports only from ${layers.slice(0, i + 1).map((l) => l.name).join(', ')}`,
    severity: 'error',
    from: { path: layer.path },
    to: { path: layers.slice(i + 1).map((l) => `(${l.path})`).join('|') },
  }));
  rules.push(
    { name: 'no-cycles', comment: 'no import cycles', severity: 'error', from: {}, to: { circular: true } },
    { name: 'analytics-pure-store', comment: 'processors/analytics is pure: it imports only schemas and itself', severity: 'error', from: { path: PURE }, to: { path: '^(ops|clickhouse|ingest|query-api)/|^processors/(?!analytics/)' } },
    { name: 'analytics-pure-io', comment: 'processors/analytics does no I/O', severity: 'error', from: { path: PURE, pathNot: '\\.test\\.ts$' }, to: { dependencyTypes: ['core'], path: IO_MODULES } },
    { name: 'not-to-unresolvable', comment: 'every relative import resolves to a file', severity: 'error', from: {}, to: { couldNotResolve: true, dependencyTypesNot: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'core'] } },
  );
  return rules;
}

/** The folders the rule set cruises. */
export const CRUISED = ['schemas', 'ops', 'clickhouse', 'ingest', 'processors', 'query-api', 'bench', 'test', 'scripts', 'bin'];

export function cruiseConfiguration(layers: readonly Layer[] = LAYERS): IConfiguration {
  return {
    forbidden: layerRules(layers),
    options: {
      doNotFollow: { path: 'node_modules' },
      exclude: { path: '(^|/)(node_modules|data|lib|target|\\.tmp)/' },
      tsPreCompilationDeps: true,
      combinedDependencies: false,
      moduleSystems: ['es6', 'cjs'],
      enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js', '.json'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], mainFields: ['module', 'main', 'types'] },
    },
  };
}
