import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Store } from '#clickhouse/store.ts';
import type { ReplayProducer } from './replay/producer.ts';
import type { SnapshotCache } from './gex/snapshot-cache.ts';
import type { TapeTail } from './tape/tail-feed.ts';
import type { LiveFlow } from './tape/live-flow-feed.ts';
import type { Account, AccountCache } from './accounts/cache.ts';
import type { Entitlement } from './accounts/plans.ts';
import type { AccountsRepository } from './accounts/repository.ts';
import type { ApiConfig } from './config.ts';
import type { RouteCache } from './cache/route-cache.ts';
import type { ConnectionCap } from './ws/connection-cap.ts';
import type { Responder } from './envelope/envelope.ts';
import type { HistoryPolicy } from './limits/history-clamp.ts';
import type { LimitDecision, RateLimiter } from './limits/limiter.ts';
import type { UsageRecorder } from './limits/usage.ts';

export type ApiInstance = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, ZodTypeProvider>;

/** Health of the latest-snapshot cache (pluggable: the GEX snapshot store provides it). */
export interface CacheHealth {
  readonly ok: boolean;
  /** Age of the newest cached snapshot, seconds; null when nothing is cached. */
  readonly age_seconds: number | null;
}

/** What route families get: shared services of the app. */
export interface AppContext {
  readonly store: Store;
  readonly config: ApiConfig;
  readonly clock: () => number;
  readonly respond: Responder;
  readonly accounts: AccountCache;
  readonly repository: AccountsRepository;
  readonly limiter: RateLimiter;
  /** Metered usage (usage_events). */
  readonly usage: UsageRecorder;
  readonly cacheHealth: () => CacheHealth | Promise<CacheHealth>;
  /** Latest GEX snapshot per symbol in memory (null when the app runs without the GEX routes). */
  readonly snapshots: SnapshotCache | null;
  /** The newest option trades in memory (tape/tail-feed.ts); null: /v2/tape reads the store only. */
  readonly tapeTail: TapeTail | null;
  /** The live contracts' trades in memory (tape/live-flow-feed.ts); null: flow by strike reads the store only. */
  readonly liveFlow: LiveFlow | null;
  /** The ~30 s response cache of the computed routes (cache/route-cache.ts). */
  readonly routeCache: RouteCache;
  /** Where replays are made (replay/producer.ts): the replay thread (REPLAY_THREAD, default) or this thread. */
  readonly replays: ReplayProducer;
  /** Concurrent replays per user (WebSocket public/replay and GET /v2/replay; replay/caps.ts). */
  readonly replayCap: ConnectionCap;
  /** History policy of an authenticated request (plan window; enforced for evaluation keys). */
  historyPolicy(request: FastifyRequest): HistoryPolicy;
}

/**
 * A family of routes (one file per family), registered in its own encapsulated context after the core
 * plugins: auth, entitlement, limits, envelope and error mapping already apply to it.
 */
export type RouteFamily = (app: ApiInstance, ctx: AppContext) => Promise<void>;

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
    entitlement: Entitlement | null;
    limits: LimitDecision | null;
  }
  interface FastifyContextConfig {
    /** No API key required (openapi.json, docs, redoc, health). */
    public?: boolean;
    /** Rate limited per client IP instead of per user (health). */
    ipLimited?: boolean;
    /** Quota units the request costs (default 1), computed from the raw query; e.g. one per bundle series. */
    quotaUnits?: (query: unknown) => number;
  }
}
