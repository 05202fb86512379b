import { Redis } from 'ioredis';
import type { CounterBackend, HitRequest, HitResult } from './counter.ts';
import { minuteWindow, monthWindow, unixSeconds } from './windows.ts';

/**
 * Atomic check-and-count in one round trip. KEYS: minute counter, month counter.
 * ARGV: burst (-1 = unlimited), quota (-1 = unlimited), units, seed (-1 = none), minute TTL s, month expiry (unix s).
 * Returns {code, minuteCount, monthCount}; code -1 = month key missing (no seed), 0 = burst, 1 = allowed, 2 = quota.
 */
const HIT_LUA = `
local burst = tonumber(ARGV[1])
local quota = tonumber(ARGV[2])
local units = tonumber(ARGV[3])
local seed = tonumber(ARGV[4])
local month = redis.call('GET', KEYS[2])
if not month then
  if seed < 0 then return {-1, 0, 0} end
  redis.call('SET', KEYS[2], seed, 'NX')
  redis.call('EXPIREAT', KEYS[2], tonumber(ARGV[6]))
  month = redis.call('GET', KEYS[2])
end
month = tonumber(month)
local minute = tonumber(redis.call('GET', KEYS[1]) or '0')
if quota >= 0 and month + units > quota then return {2, minute, month} end
if burst >= 0 and minute >= burst then return {0, minute, month} end
minute = redis.call('INCR', KEYS[1])
if minute == 1 then redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5])) end
month = redis.call('INCRBY', KEYS[2], units)
return {1, minute, month}
`;

type HitCommand = (k1: string, k2: string, ...args: (string | number)[]) => Promise<unknown>;

export interface RedisCounterOptions {
  readonly url: string;
  readonly keyPrefix: string;
  readonly timeoutMs: number;
}

export class RedisCounter implements CounterBackend {
  readonly redis: Redis;
  private readonly hitCommand: HitCommand;

  constructor(private readonly opts: RedisCounterOptions) {
    this.redis = new Redis(opts.url, {
      lazyConnect: true,
      // Fail fast instead of queueing: the limiter falls back to the per-machine counter meanwhile.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: opts.timeoutMs,
      connectTimeout: 1000,
      retryStrategy: (times) => Math.min(100 * times, 1000),
    });
    // Connection errors are reported through failed commands; keep ioredis from logging unhandled errors.
    this.redis.on('error', () => undefined);
    this.redis.defineCommand('gexHit', { numberOfKeys: 2, lua: HIT_LUA });
    const fn = (this.redis as unknown as Record<string, HitCommand | undefined>)['gexHit'];
    if (fn === undefined) throw new Error('ioredis did not define the gexHit command');
    this.hitCommand = fn.bind(this.redis);
  }

  /** Connects (bounded by `waitMs`); resolves false when Redis is not reachable yet (reconnects in the background). */
  async connect(waitMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.redis.connect().then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), waitMs);
        }),
      ]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  async hit(req: HitRequest): Promise<HitResult> {
    const minute = minuteWindow(req.now);
    const month = monthWindow(req.now);
    const p = this.opts.keyPrefix;
    const raw = await this.hitCommand(
      `${p}rl:m:${req.userId}:${unixSeconds(minute.start)}`,
      `${p}rl:q:${req.userId}:${month.month}`,
      req.burstLimit ?? -1,
      req.quota ?? -1,
      req.units,
      req.seed ?? -1,
      120,
      unixSeconds(month.end) + 86_400,
    );
    if (!Array.isArray(raw) || raw.length !== 3) throw new Error('unexpected reply from the rate-limit script');
    const [code, minuteCount, monthCount] = raw.map(Number) as [number, number, number];
    if (code === -1) return { kind: 'missing' };
    const kind = code === 1 ? 'allowed' : code === 2 ? 'quota' : 'burst';
    return { kind, minuteCount, monthCount };
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
