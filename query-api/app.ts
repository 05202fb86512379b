import Fastify, { LogController, type FastifyBaseLogger, type FastifyReply } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Store } from '#clickhouse/store.ts';
import type { Bus } from '#bus/types.ts';
import { SYMBOLS } from '#schemas/events.ts';
import type { SnapshotCache } from './gex/snapshot-cache.ts';
import { childLogger, type Logger } from '#platform/log.ts';
import { AccountCache } from './accounts/cache.ts';
import { AccountsRepository } from './accounts/repository.ts';
import type { ApiConfig } from './config.ts';
import { createResponder } from './envelope/envelope.ts';
import { IpLimiter, RateLimiter } from './limits/limiter.ts';
import { RedisCounter } from './limits/redis-counter.ts';
import { UsageRecorder } from './limits/usage.ts';
import { docsPlugin } from './plugins/docs.ts';
import { explorerPlugin } from './explorer/plugin.ts';
import { errorsPlugin } from './plugins/errors.ts';
import { gatePlugin } from './plugins/gate.ts';
import { metricsPlugin } from './plugins/metrics.ts';
import { genRequestId } from './plugins/request-id.ts';
import { discoveryRoutes } from './discovery/index.ts';
import { gexRoutes } from './gex/index.ts';
import { marketRoutes } from './market/index.ts';
import { referenceRoutes } from './reference/index.ts';
import { optionsRoutes } from './options/index.ts';
import { tapeRoutes } from './tape/index.ts';
import { replayRoutes } from './replay/index.ts';
import { TapeTail } from './tape/tail-feed.ts';
import { LiveFlow } from './tape/live-flow-feed.ts';
import { FLOW_SYMBOLS } from '#processors/analytics/dealer.ts';
import { RouteCache } from './cache/route-cache.ts';
import { apiStore } from './plugins/store-breaker.ts';
import type { ApiInstance, AppContext, CacheHealth, RouteFamily } from './types.ts';
import { readTlsConfig, startTlsReloader, type TlsPair, type TlsReloader } from './tls.ts';
import { asyncApiRoutes } from './ws/asyncapi.ts';
import { attachWsFeed, type WsFeed, type WsFeedOptions } from './ws/feed.ts';
import { ConnectionCap } from './ws/connection-cap.ts';
import { wsReplayPort } from './replay/ws-replay.ts';
import { inThreadProducer } from './replay/producer.ts';
import { ReplayThread } from './replay/thread/replay-thread.ts';

export interface AppDeps {
  readonly store: Store;
  readonly config: ApiConfig;
  /** Wall clock (ms); injectable for tests. Default Date.now. */
  readonly clock?: () => number;
  /**
   * Latest GEX snapshots in memory (created and started by the caller). When given, the GEX routes
   * (/v2/gex/*, /v2/multi/gex/levels) are registered and /v2/health reports the cache from it.
   */
  readonly snapshots?: SnapshotCache;
  /** Health of the latest-snapshot cache for /v2/health. Default: from `snapshots`, else healthy (nothing cached). */
  readonly cacheHealth?: () => CacheHealth | Promise<CacheHealth>;
  /** More route families (e.g. GEX), registered after the discovery family. */
  readonly routes?: readonly RouteFamily[];
  /** pino logger (JSON); false = silent. Default: the process logger, component "api". */
  readonly logger?: Logger | false;
  /** Per-request access logs at info level. Default true. */
  readonly requestLogging?: boolean;
  /** The WebSocket feed /v2/ws, fed from this bus (needs `snapshots`); see ws/feed.ts. */
  readonly feed?: Omit<WsFeedOptions, 'snapshots' | 'redis' | 'replay'> & { readonly replayStallMs?: number };
  /**
   * The bus the in-memory trade mirrors follow: the tape tail (config.tapeTailRows > 0: the newest /v2/tape pages
   * from memory, tape/tail-feed.ts) and the live flow book (config.liveFlowTrades > 0: /v2/tape/flow-by-strike from
   * memory, tape/live-flow-feed.ts). None: both routes read the store.
   */
  readonly tapeBus?: Bus;
  /** With TLS_CERT_FILE + TLS_KEY_FILE: how the files are watched for a reload (tls.ts; defaults 1000 ms poll, 2000 ms quiet time). */
  readonly tlsWatch?: { readonly intervalMs?: number; readonly debounceMs?: number };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Services of the API (accounts, limiter, ...), for the admin endpoint and tests. */
    gex: AppContext;
    /** The WebSocket feed (null when the app runs without it). */
    wsFeed: WsFeed | null;
  }
}

const plainSerializerCompiler =
  () =>
  (data: unknown): string =>
    JSON.stringify(data);

const defaultCacheHealth = (): CacheHealth => ({ ok: true, age_seconds: null });
const snapshotsHealth = (cache: SnapshotCache, clock: () => number) => (): CacheHealth => cache.health(clock());

/**
 * Limits of the HTTP surface against oversize and slow clients (README "Security"): body and header sizes, the time
 * to send the headers and the whole request, idle keep-alive. Node checks the header/request deadlines every
 * `connectionsCheckingInterval`, so that interval follows the headers timeout (at most 1 s). With TLS (README
 * "HTTPS") the same server options go to the HTTPS server, whose TLS handshake must also end within the headers
 * timeout.
 */
function httpLimits(config: AppDeps['config'], tls: TlsPair | null) {
  const headersTimeout = Math.min(config.httpHeadersTimeoutMs, config.httpRequestTimeoutMs);
  const server = {
    maxHeaderSize: config.httpMaxHeaderBytes,
    headersTimeout,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 2))),
  };
  return {
    bodyLimit: config.httpBodyLimitBytes,
    requestTimeout: config.httpRequestTimeoutMs,
    keepAliveTimeout: config.httpKeepAliveTimeoutMs,
    http: server,
    // null: plain HTTP (Fastify then creates an http.Server with `http`).
    https: tls === null ? null : { ...server, handshakeTimeout: headersTimeout, cert: tls.cert, key: tls.key },
  };
}

/**
 * The /v2 API: Fastify with the zod type provider; plugins for request id, metrics, error mapping, API-key
 * auth + entitlement, rate limit + quota + headers and the generated docs; then the route families.
 * Resolves when the app is ready (not listening: call `app.listen`).
 */
export async function buildApp(deps: AppDeps): Promise<ApiInstance> {
  const clock = deps.clock ?? Date.now;
  const { config } = deps;
  // Reads answer within STORE_READ_TIMEOUT_MS, and fail fast while the store is known to be down (circuit open).
  const store = apiStore(deps.store, config, childLogger('api-store'));
  // TLS_CERT_FILE + TLS_KEY_FILE: HTTPS and wss:// on the same server; a bad pair stops here with a ConfigError.
  const tls = readTlsConfig(config);
  const respond = createResponder(clock);
  const fastify = Fastify({
    // A path parameter that is not valid percent-encoding (e.g. /v2/options/greeks/%ff) fails in the router,
    // before the hooks and the error handler: answer it with the error envelope here.
    frameworkErrors: (_err, request, reply) => {
      const body = respond.error(request, 'VALIDATION_ERROR', 'malformed request', {
        errors: [{ name: '(path)', location: 'path', message: 'not valid percent-encoding', received: null }],
      });
      void (reply as unknown as FastifyReply)
        .code(422)
        .header('x-request-id', request.id)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(body));
    },
    ...(deps.logger === false ? { logger: false } : { loggerInstance: (deps.logger ?? childLogger('api')) as FastifyBaseLogger }),
    logController: new LogController({ disableRequestLogging: deps.requestLogging === false, requestIdLogLabel: 'request_id' }),
    genReqId: genRequestId,
    requestIdHeader: false,
    trustProxy: config.trustProxy,
    ...httpLimits(config, tls?.pair ?? null),
  });
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  // Responses are validated against their zod schemas when RESPONSE_VALIDATION is on (tests and CI); in
  // production the handlers' output is serialized as is (response schemas carry no transforms).
  app.setSerializerCompiler(config.responseValidation ? serializerCompiler : plainSerializerCompiler);

  const repository = new AccountsRepository(store, clock);
  const accounts = new AccountCache({
    repository,
    keyPrefix: config.apiKeyPrefix,
    refreshMs: config.accountsRefreshMs,
    clock,
    log: app.log,
  });
  const usage = new UsageRecorder(store, clock, app.log, config.usageFlushMs);
  let shared: RedisCounter | undefined;
  if (config.redisUrl !== undefined) {
    shared = new RedisCounter({ url: config.redisUrl, keyPrefix: config.redisKeyPrefix, timeoutMs: config.redisTimeoutMs });
    if (!(await shared.connect())) app.log.warn('Redis not reachable at start; using the per-machine fallback counter until it is');
  }
  const limiter = new RateLimiter({ shared, usage, clock, fallbackFactor: config.rateLimitFallbackFactor, log: app.log });
  const ipLimiter = new IpLimiter(config.healthPerIpPerMinute, clock);
  const tapeTail =
    deps.tapeBus !== undefined && config.tapeTailRows > 0
      ? new TapeTail({
          bus: deps.tapeBus,
          store,
          symbols: SYMBOLS,
          capacity: config.tapeTailRows,
          reconcileMs: config.tapeTailReconcileMs,
          clock,
        })
      : null;
  const liveFlow =
    deps.tapeBus !== undefined && config.liveFlowTrades > 0
      ? new LiveFlow({
          bus: deps.tapeBus,
          store,
          symbols: FLOW_SYMBOLS,
          capacity: config.liveFlowTrades,
          reconcileMs: config.liveFlowReconcileMs,
          clock,
        })
      : null;

  const replayCap = new ConnectionCap({
    ...(shared !== undefined ? { redis: shared } : {}),
    keyPrefix: config.redisKeyPrefix,
    scope: 'replay',
    fallbackFactor: config.rateLimitFallbackFactor,
    log: app.log,
  });

  // Replays are made on their own thread (REPLAY_THREAD), started at the first replay.
  const replays = config.replayThread
    ? new ReplayThread(store, { lowerV8Workers: config.replayLowersV8Workers, stopPretenuring: config.replayStopsPretenuring })
    : inThreadProducer(store);
  const ctx: AppContext = {
    store,
    config,
    clock,
    respond,
    accounts,
    repository,
    limiter,
    usage,
    cacheHealth: deps.cacheHealth ?? (deps.snapshots !== undefined ? snapshotsHealth(deps.snapshots, clock) : defaultCacheHealth),
    snapshots: deps.snapshots ?? null,
    tapeTail,
    liveFlow,
    routeCache: new RouteCache(config.routeCacheMs, clock),
    replays,
    replayCap,
    historyPolicy: (request) => ({
      // null = the plan keeps all history (no clamp); no entitlement (no key) = none.
      historyDays: request.entitlement == null ? 0 : request.entitlement.historyDays,
      enforced: request.account?.evaluation ?? true,
      now: clock(),
    }),
  };
  app.decorate('gex', ctx);
  app.addHook('onClose', async () => {
    store.stopProbe();
    await tapeTail?.stop();
    await liveFlow?.stop();
    await usage.close();
    await limiter.close();
    replayCap.close();
    await replays.close();
  });
  // SIGHUP and the certificate files' watch (started once the app is ready) end with the app.
  let tlsReloader: TlsReloader | null = null;
  app.addHook('onClose', async () => tlsReloader?.close());

  await app.register(metricsPlugin);
  await app.register(errorsPlugin, { respond });
  await app.register(gatePlugin, { accounts, config, limiter, ipLimiter });
  await app.register(docsPlugin);
  await app.register(explorerPlugin);
  const families = [
    discoveryRoutes,
    asyncApiRoutes,
    marketRoutes,
    referenceRoutes,
    tapeRoutes,
    replayRoutes,
    optionsRoutes,
    ...(deps.snapshots !== undefined ? [gexRoutes] : []),
    ...(deps.routes ?? []),
  ];
  for (const family of families) {
    await app.register(async (scope) => family(scope, ctx));
  }
  const feed =
    deps.feed !== undefined && deps.snapshots !== undefined
      ? await attachWsFeed(app, {
          ...deps.feed,
          snapshots: deps.snapshots,
          ...(shared !== undefined ? { redis: shared } : {}),
          replay: wsReplayPort({
            producer: replays,
            cap: replayCap,
            clock,
            log: app.log,
            ...(deps.feed.replayStallMs !== undefined ? { stallMs: deps.feed.replayStallMs } : {}),
          }),
        })
      : null;
  app.decorate('wsFeed', feed);
  // The trade mirrors subscribe in the background (a Kafka group join takes seconds): until their first load the
  // tape and flow-by-strike routes read the store; a bus that refuses leaves them on the store for good.
  for (const [name, mirror] of [
    ['tape tail', tapeTail],
    ['live flow book', liveFlow],
  ] as const) {
    mirror?.start().catch((err: unknown) => app.log.warn({ err }, `${name}: bus subscription failed; the route reads the store`));
  }
  await app.ready();
  if (tls !== null) {
    app.log.info(
      { certFile: tls.files.certFile, fingerprint256: tls.pair.fingerprint256, validTo: tls.pair.validTo },
      'TLS on: HTTPS and wss:// with this certificate (reloaded on SIGHUP and when the files change)',
    );
    tlsReloader = startTlsReloader({ server: app.server, files: tls.files, current: tls.pair, log: app.log, ...deps.tlsWatch });
  }
  return app;
}
