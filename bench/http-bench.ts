/**
 * Shared pieces of the HTTP route benchmarks: a bench user's key, a keep-alive client that reads every body to
 * the last byte, the bare-Fastify baseline serving the same bytes, timing loops and quantiles.
 */
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { Store } from '#clickhouse/store.ts';
import { AccountsRepository } from '#query-api/accounts/repository.ts';
import { httpGet } from './http-get.ts';

/** An enterprise (unlimited) user and one of its keys. */
export async function benchKey(store: Store): Promise<string> {
  const repo = new AccountsRepository(store);
  await repo.upsertUser({ userId: 'bench', plan: 'enterprise', status: 'active', evaluation: false });
  return (await repo.createKey('bench', 'gex')).key;
}

export interface BenchClient {
  /** GET to the last byte; throws unless 200. */
  get(path: string): Promise<void>;
  /** Body size of the last GET. */
  readonly lastBytes: number;
  /** The same bytes from a bare Fastify route (the baseline): GET to the last byte. */
  bare(): Promise<void>;
  close(): Promise<void>;
}

/** A client of `base` with `key`, and a bare Fastify server answering `sample` (a body the route sent). */
export async function benchClient(base: string, key: string, sample: string): Promise<BenchClient> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { 'x-api-key': key };
  const bare = Fastify({ logger: false });
  bare.get('/bare', async (_req, reply) => reply.type('application/json; charset=utf-8').send(sample));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareUrl = new URL(`http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/bare`);
  let lastBytes = 0;
  return {
    async get(path) {
      const r = await httpGet(agent, new URL(path, base), headers);
      if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status}`);
      lastBytes = r.bytes;
    },
    get lastBytes() {
      return lastBytes;
    },
    async bare() {
      await httpGet(agent, bareUrl, {});
    },
    async close() {
      agent.destroy();
      await bare.close();
    },
  };
}

/** Durations (ms) of `n` runs after `warm` warm-up runs (warm-up indexes are negative). */
export async function timesMs(n: number, fn: (i: number) => Promise<unknown>, warm = 5): Promise<number[]> {
  for (let i = 0; i < Math.min(warm, n); i++) await fn(-1 - i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}

export const ms = (v: number): string => `${v.toFixed(2)} ms`;
export const verdict = (v: number, target: number): string => `target < ${target} ms: ${v < target ? 'OK' : 'ABOVE'}`;
