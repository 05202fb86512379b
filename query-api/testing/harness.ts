import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { migrate } from '#clickhouse/migrate.ts';
import type { Store } from '#clickhouse/store.ts';
import { openTempStore } from '#clickhouse/testing/temp-store.ts';
import { AccountsRepository } from '../accounts/repository.ts';
import { buildApp, type AppDeps } from '../app.ts';
import { apiConfig, type ApiConfig } from '../config.ts';
import type { ApiInstance } from '../types.ts';

/** Test helpers: a migrated temp chDB store, users with keys, a controllable clock, a real redis-server. */

export async function migratedStore(): Promise<{ readonly store: Store; readonly dataPath: string; dispose(): Promise<void> }> {
  const t = await openTempStore();
  await migrate(t.store);
  return t;
}

export interface TestClock {
  (): number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function testClock(start: number): TestClock {
  let now = start;
  const c = (() => now) as TestClock;
  c.set = (ms) => {
    now = ms;
  };
  c.advance = (ms) => {
    now += ms;
  };
  return c;
}

/** Creates (or updates) a user and issues one key for it; returns the key. */
export async function userWithKey(
  store: Store,
  user: { readonly userId: string; readonly plan: string; readonly status?: string; readonly evaluation?: boolean },
  prefix = 'gex',
): Promise<string> {
  const repo = new AccountsRepository(store);
  await repo.upsertUser({ userId: user.userId, plan: user.plan, status: user.status ?? 'active', evaluation: user.evaluation ?? false });
  return (await repo.createKey(user.userId, prefix)).key;
}

export async function testApp(store: Store, overrides: Partial<ApiConfig> = {}, deps: Partial<AppDeps> = {}): Promise<ApiInstance> {
  // A long read deadline: suites run over the HTTP endpoint on a busy machine too (the breaker has its own test).
  return buildApp({
    store,
    config: apiConfig({ responseValidation: true, storeReadTimeoutMs: 60_000, ...overrides }),
    logger: false,
    ...deps,
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface TestRedis {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A real redis-server on a random loopback port, no persistence. Call stop() when done. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 5000);
      proc.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  };
  const stop = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start };
}

export function header(res: { headers: Record<string, unknown> }, name: string): string | undefined {
  const v = res.headers[name.toLowerCase()];
  return typeof v === 'string' ? v : v === undefined ? undefined : String(v);
}
