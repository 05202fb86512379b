/**
 * `npm run bench -- <suite> [<suite> ...]`: performance benchmarks. Each suite prints absolute figures and ratios
 * against a baseline measured in the same run. Benchmarks are not tests: they never fail on a target, they report.
 *
 * Suites: bus (bus throughput + embedded store inserts + the fixed cost of one INSERT), gex (snapshot cycle + as_of
 * lookups), ingest (parser throughput + end-to-end sandbox -> bus -> ClickHouse), parsers (the parser part of
 * ingest alone: vs JSON.parse and vs the peer library tardis-dev), api (HTTP load), market (series queries over a year),
 * flow (dealer-flow tick and as_of vs the full scan over 1, 3 and 12 months of option trades), ws (WebSocket fan-out),
 * options-greeks (greek-exposure routes and stress history vs bare Fastify and SELECT 1), options (chain snapshot
 * write, chain / greeks / venue-book / OI routes, as_of over 30 days of stored chains, disk per day), level-study
 * (/v2/gex/level-study over a year of 30 s snapshots, cold and warm, vs the bare SELECT and the pure computation),
 * replay (GET /v2/replay and the WebSocket `public/replay` over 30 days of levels and 10 M trades vs the bare reads;
 * the live feed's delay during 20 concurrent replays).
 */
type Suite = () => Promise<void>;

const SUITES: Readonly<Record<string, readonly (() => Promise<Suite>)[]>> = {
  bus: [
    async () => (await import('./bus.ts')).runBusBench,
    async () => (await import('./store.ts')).runStoreBench,
    async () => (await import('./store-insert-cost.ts')).runStoreInsertCostBench,
  ],
  gex: [async () => (await import('./gex.ts')).runGexBench, async () => (await import('./gex-asof.ts')).runGexAsOfBench],
  ingest: [
    async () => (await import('./ingest-parsers.ts')).runParserBench,
    async () => (await import('./ingest-parsers-smaller-venues.ts')).runSmallerVenueParserBench,
    async () => (await import('./ingest-e2e.ts')).runIngestE2eBench,
  ],
  parsers: [
    async () => (await import('./ingest-parsers.ts')).runParserBench,
    async () => (await import('./ingest-parsers-smaller-venues.ts')).runSmallerVenueParserBench,
  ],
  api: [async () => (await import('./api.ts')).runApiBench],
  market: [async () => (await import('./market.ts')).runMarketBench],
  flow: [async () => (await import('./flow.ts')).runFlowBench, async () => (await import('./flow-routes.ts')).runFlowRoutesBench],
  ws: [async () => (await import('./ws-fanout.ts')).runWsFanoutBench, async () => (await import('./ws.ts')).runWsBench],
  'options-greeks': [async () => (await import('./options-greeks.ts')).runOptionsGreeksBench],
  options: [async () => (await import('./options.ts')).runOptionsBench],
  'level-study': [async () => (await import('./level-study.ts')).runLevelStudyBench],
  replay: [async () => (await import('./replay.ts')).runReplayBench],
};

async function main(args: readonly string[]): Promise<number> {
  const names = args.length > 0 ? args : Object.keys(SUITES);
  for (const name of names) {
    const loaders = SUITES[name];
    if (!loaders) {
      process.stderr.write(`unknown bench suite '${name}'; suites: ${Object.keys(SUITES).join(', ')}\n`);
      return 2;
    }
    process.stdout.write(`\n##### bench: ${name}\n`);
    for (const load of loaders) await (await load())();
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
