import { join, resolve } from 'node:path';
import type { CliCommand, CommandArgs } from '../command.ts';
import { SETTINGS } from '#platform/settings.ts';
import type { Venue } from '#schemas/events.ts';
import type { VenueUrls } from '#ingest/connector/types.ts';
import { createRuntimeContext, type RuntimeContext } from '../../runtime/context.ts';
import { untilSignal } from '../../runtime/signals.ts';
import { startRawWriter } from '#processors/raw-writer/raw-writer.ts';
import { startLeasedSnapshotProcessor } from '#processors/snapshots/leased.ts';
import { startIngest } from '#ingest/pipeline/run-ingest.ts';
import { startIngestThread } from '#ingest/thread/start-ingest-thread.ts';
import { startSandboxFeed } from '../../runtime/sandbox-feed.ts';
import { startTerminalStatus } from '../../runtime/terminal-status.ts';
import { startApi, type RunningApi } from '#query-api/server.ts';
import { SnapshotCache } from '#query-api/gex/snapshot-cache.ts';
import { pickApiConfig } from '#query-api/config.ts';
import { curlTrustOption, readTlsConfig } from '#query-api/tls.ts';
import { loadBundledReferenceData } from '#ingest/reference/bundled.ts';

/** The roles, named after the folders they run: ingest/, processors/, query-api/. */
export type Role = 'ingest' | 'processors' | 'query-api';

/** Starts the given roles in this process on one runtime context and runs until SIGINT/SIGTERM. */
export async function runRoles(
  args: CommandArgs,
  roles: ReadonlySet<Role>,
  opts: { sandbox?: boolean; demoKey?: boolean; referenceSamples?: boolean } = {},
): Promise<number> {
  // A TLS setting that cannot be served (half a pair, unreadable or invalid PEM) stops the start before the store
  // opens: ConfigError, printed by the CLI like any invalid setting.
  if (roles.has('query-api')) readTlsConfig(pickApiConfig(args.config));
  const ctx = await createRuntimeContext(args.config);
  try {
    if (opts.referenceSamples) await loadReferenceSamples(ctx);
    const started = await startRoles(ctx, roles, opts.sandbox ?? args.config.sandbox);
    if (opts.demoKey && started.api) await printDemoKey(started.api, ctx.sqlUrl, ctx.config.dataDir);
    startTerminalStatus(ctx, roles, started.api?.url ?? null);
  } catch (err) {
    ctx.log.error({ err }, 'start failed');
    await ctx.shutdown();
    return 1;
  }
  return untilSignal(ctx);
}

/** Registration order matters: shutdown runs in reverse (api, ingest, processors, sandbox, bus, store). */
export async function startRoles(ctx: RuntimeContext, roles: ReadonlySet<Role>, sandbox: boolean): Promise<{ api: RunningApi | null }> {
  const { config } = ctx;
  let urls: Partial<Record<Venue, VenueUrls>> = {};
  if (sandbox && roles.has('ingest')) {
    const feed = await startSandboxFeed(config);
    ctx.onShutdown(() => feed.stop());
    urls = feed.urls;
  }
  if (roles.has('processors')) {
    const writer = await startRawWriter(ctx.bus, ctx.store);
    ctx.onShutdown(() => writer.stop());
    // Several `gex processors` on one Kafka share the raw writer's partitions; one of them (the lease holder) computes the snapshots.
    const snapshots = await startLeasedSnapshotProcessor(ctx.bus, ctx.store, {
      config: { snapshotIntervalMs: config.snapshotIntervalMs, symbols: config.symbols },
    });
    ctx.onShutdown(() => snapshots.stop());
  }
  if (roles.has('ingest')) {
    // Fed by the sandbox, only the venues it serves are connected (live URLs are unreachable offline).
    const venues = sandbox ? config.venues.filter((v) => urls[v] !== undefined) : config.venues;
    const spool =
      config.ingestSpoolMb > 0 ? { dir: join(config.dataDir, 'ingest-spool'), maxBytes: config.ingestSpoolMb * 1024 * 1024 } : undefined;
    const options = { venues, symbols: config.symbols, urls, startFillMs: config.ingestStartFillMs, ...(spool ? { spool } : {}) };
    // On its own thread by default (INGEST_THREAD): the connectors use a second core. A failure of that thread
    // is thrown here, where the role's policy logs it and exits for its supervisor (runtime/signals.ts).
    const ingest = config.ingestThread ? await startIngestThread(ctx.bus, options) : await startIngest({ bus: ctx.bus, ...options });
    ctx.onShutdown(() => ingest.stop());
  }
  let api: RunningApi | null = null;
  if (roles.has('query-api')) {
    // Latest GEX snapshots in memory: polled from ClickHouse every 5 s, and announced on
    // analytics.snapshots.v1 when the snapshot processor runs in this process (loaded at once).
    const snapshots = new SnapshotCache(ctx.store, {
      symbols: config.symbols,
      pollMs: 5_000,
      intervalMs: config.snapshotIntervalMs,
      ...(roles.has('processors') ? { bus: ctx.bus } : {}),
    });
    await snapshots.start();
    ctx.onShutdown(() => snapshots.stop());
    const running = await startApi({
      store: ctx.store,
      config: pickApiConfig(config),
      host: config.host,
      port: config.port,
      dataDir: config.dataDir,
      snapshots,
      // /v2/ws: this process's own consumer groups on the trade and snapshot topics (query-api/ws).
      feed: { bus: ctx.bus },
      // /v2/tape: the newest trades per symbol in memory, followed on the same bus (query-api/tape/tail-feed.ts).
      tapeBus: ctx.bus,
    });
    api = running;
    ctx.onShutdown(() => running.close());
  }
  return { api };
}

/** Offline demo: the bundled ETF, COT and 13F samples, so every reference route answers (a reload changes nothing). */
async function loadReferenceSamples(ctx: RuntimeContext): Promise<void> {
  const reports = await loadBundledReferenceData(ctx.store);
  const written = reports.reduce((n, r) => n + r.written, 0);
  const refused = reports.filter((r) => r.errors.length > 0).map((r) => r.file);
  if (refused.length > 0) ctx.log.warn({ refused }, 'reference samples refused');
  ctx.log.info({ files: reports.length, units: written }, 'reference samples loaded (ETF flows, COT, 13F)');
}

/** The demo's ready-to-use key: user `demo` on the pro level (bundle_monthly), active; printed on stdout with the SQL endpoint. */
async function printDemoKey(api: RunningApi, sqlUrl: string | null, dataDir: string): Promise<void> {
  const repo = api.app.gex.repository;
  await repo.upsertUser({ userId: 'demo', plan: 'bundle_monthly', status: 'active', evaluation: false });
  const key = await repo.createKey('demo', api.app.gex.config.apiKeyPrefix);
  await api.app.gex.accounts.refresh();
  // With TLS the URL is https://: curl trusts the served certificate through --cacert (or -k when it does not name the host).
  const certFile = api.app.gex.config.tlsCertFile;
  const trust = certFile !== undefined ? `${curlTrustOption(certFile, api.url)} ` : '';
  process.stdout.write(
    `\nGEX demo is running: ${api.url}/v2  (docs: ${api.url}/v2/docs)\n` +
      `API key (user demo, plan bundle_monthly = pro): ${key.key}\n` +
      `  curl ${trust}-H 'X-API-Key: ${key.key}' '${api.url}/v2/meta'\n` +
      (sqlUrl === null ? '' : sqlLines(sqlUrl, dataDir)) +
      '\n',
  );
}

/**
 * The store's SQL endpoint (read-only user; the account tables are out of its reach): URL, gex sql and curl lines.
 * gex sql finds the endpoint through DATA_DIR, named on its line unless it is the default.
 */
function sqlLines(sqlUrl: string, dataDir: string): string {
  const example = 'SELECT count() FROM option_trades';
  const env = dataDir === SETTINGS.dataDir.default ? '' : `DATA_DIR=${resolve(dataDir)} `;
  return (
    `SQL (ClickHouse HTTP, read-only): ${sqlUrl}\n` +
    `  ${env}npx gex sql "${example}"\n` +
    `  curl '${sqlUrl}/' --data-binary '${example}'\n`
  );
}

function roleCommand(name: string, roles: readonly Role[], summary: string, demo = false, aliases: readonly string[] = []): CliCommand {
  return {
    name,
    aliases,
    usage: aliases.length > 0 ? `${name} (or ${aliases.join(', ')})` : name,
    summary,
    run: (args) => runRoles(args, new Set(roles), demo ? { sandbox: true, demoKey: true, referenceSamples: true } : {}),
  };
}

export const ROLE_COMMANDS: readonly CliCommand[] = [
  roleCommand('all', ['ingest', 'processors', 'query-api'], 'Every role in one process (live venues unless --sandbox).'),
  roleCommand('ingest', ['ingest'], 'Venue connectors -> bus.'),
  roleCommand('processors', ['processors'], 'Processors: raw writer, GEX snapshots -> ClickHouse.', false, ['process']),
  roleCommand('query-api', ['query-api'], 'The /v2 API.', false, ['api']),
  roleCommand('demo', ['ingest', 'processors', 'query-api'], 'Offline demo: every role fed by the local sandbox market.', true),
];
