/**
 * Concurrent WebSocket connections (or, with another `scope`, concurrent replays) per user, across the user's keys and
 * (with Redis) across API processes.
 * Redis: one sorted set per user, a member per open connection scored with its lease expiry; admission is one
 * Lua script (drop expired leases, count, add). Each process renews its leases every LEASE_RENEW_MS, so the
 * connections of a crashed process stop counting after LEASE_MS. Redis failing or slower than its timeout:
 * the same rule as the rate limits — a per-machine count with `fallbackFactor` × the level's cap until Redis
 * answers again (retried after 1 s). Without Redis the count is per process.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Level } from '../accounts/plans.ts';
import type { RedisCounter } from '../limits/redis-counter.ts';

/** Concurrent connections per level (null = unlimited). Published in /v2/meta `websocket.connection_caps`. */
export const WS_CONNECTION_CAPS: Readonly<Record<Level, number>> = { starter: 2, standard: 5, pro: 20, enterprise: 200 };

export const LEASE_MS = 90_000;
export const LEASE_RENEW_MS = 30_000;

const ACQUIRE_LUA = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[2]) then return {0, n} end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {1, n + 1}
`;

type AcquireCommand = (key: string, ...args: (string | number)[]) => Promise<unknown>;

export interface Admission {
  readonly allowed: boolean;
  /** Connections counted for the user, this one included when allowed. */
  readonly count: number;
  readonly limit: number;
  readonly fallback: boolean;
}

interface Lease {
  readonly userId: string;
  readonly shared: boolean;
}

export interface ConnectionCapOptions {
  readonly redis?: RedisCounter;
  readonly keyPrefix: string;
  /** What is counted, part of the Redis key: `ws:c` (connections, the default) or `replay` (concurrent replays). */
  readonly scope?: string;
  readonly fallbackFactor: number;
  readonly log: FastifyBaseLogger;
  readonly retrySharedAfterMs?: number;
}

export class ConnectionCap {
  private readonly local = new Map<string, number>();
  private readonly leases = new Map<string, Lease>();
  private readonly acquireCommand: AcquireCommand | undefined;
  private sharedDownUntil = 0;
  private renewTimer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: ConnectionCapOptions) {
    const redis = opts.redis?.redis;
    if (redis !== undefined) {
      redis.defineCommand('gexWsAcquire', { numberOfKeys: 1, lua: ACQUIRE_LUA });
      const fn = (redis as unknown as Record<string, AcquireCommand | undefined>)['gexWsAcquire'];
      this.acquireCommand = fn?.bind(redis);
      this.renewTimer = setInterval(() => void this.renew(), LEASE_RENEW_MS);
      this.renewTimer.unref();
    }
  }

  private key(userId: string): string {
    return `${this.opts.keyPrefix}${this.opts.scope ?? 'ws:c'}:${userId}`;
  }

  /** Admits connection `connId` of `userId` under `cap`, or refuses it. */
  async acquire(userId: string, connId: string, cap: number): Promise<Admission> {
    const cmd = this.acquireCommand;
    if (cmd !== undefined && performance.now() >= this.sharedDownUntil) {
      try {
        const now = Date.now();
        const raw = await cmd(this.key(userId), now, cap, now + LEASE_MS, connId, LEASE_MS * 2);
        if (!Array.isArray(raw) || raw.length !== 2) throw new Error('unexpected reply from the connection-cap script');
        const [ok, count] = raw.map(Number) as [number, number];
        if (ok === 1) this.leases.set(connId, { userId, shared: true });
        return { allowed: ok === 1, count, limit: cap, fallback: false };
      } catch (err) {
        this.sharedDownUntil = performance.now() + (this.opts.retrySharedAfterMs ?? 1000);
        this.opts.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'connection-cap store failed; using the stricter per-machine count',
        );
      }
    }
    const fallback = cmd !== undefined;
    const limit = fallback ? Math.max(1, Math.floor(cap * this.opts.fallbackFactor)) : cap;
    const n = this.local.get(userId) ?? 0;
    if (n >= limit) return { allowed: false, count: n, limit, fallback };
    this.local.set(userId, n + 1);
    this.leases.set(connId, { userId, shared: false });
    return { allowed: true, count: n + 1, limit, fallback };
  }

  /** Releases an admitted connection (where it was counted). */
  release(connId: string): void {
    const lease = this.leases.get(connId);
    if (lease === undefined) return;
    this.leases.delete(connId);
    if (lease.shared) {
      this.opts.redis?.redis.zrem(this.key(lease.userId), connId).catch(() => undefined);
      return;
    }
    const n = (this.local.get(lease.userId) ?? 1) - 1;
    if (n <= 0) this.local.delete(lease.userId);
    else this.local.set(lease.userId, n);
  }

  /** Extends this process's Redis leases (they expire after LEASE_MS when the process dies). */
  async renew(): Promise<void> {
    const redis = this.opts.redis?.redis;
    if (redis === undefined) return;
    const until = Date.now() + LEASE_MS;
    const pipeline = redis.pipeline();
    for (const [connId, lease] of this.leases) if (lease.shared) pipeline.zadd(this.key(lease.userId), 'XX', until, connId);
    await pipeline.exec().catch(() => undefined);
  }

  close(): void {
    if (this.renewTimer !== null) clearInterval(this.renewTimer);
    this.renewTimer = null;
    for (const connId of [...this.leases.keys()]) this.release(connId);
  }
}
