import { Agent } from 'node:http';
import { httpGet } from './http-get.ts';

/**
 * Open-loop load at a steady rate (the wrk2 model): request i is due at start + i / rate whatever happened to
 * earlier ones, and its latency runs from that due time to the end of its response, so a stall of the server
 * (or of this generator) is charged to every request it delays (no coordinated omission). Requests go over a
 * keep-alive pool of `connections` sockets; a request finding every socket busy waits in the pool, on the clock.
 * Runs in its own process (bench/api.ts spawns it), never in the server's.
 */
export interface SteadyJob {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly rate: number;
  readonly durationSec: number;
  readonly connections: number;
}

export interface SteadyResult {
  readonly rps: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly total: number;
}

const pct = (sorted: Float64Array, q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const ms2 = (x: number): number => Math.round(x * 100) / 100;

export function steadyLoad(job: SteadyJob): Promise<SteadyResult> {
  const url = new URL(job.url);
  const agent = new Agent({ keepAlive: true, maxSockets: job.connections });
  const total = Math.round(job.rate * job.durationSec);
  const stepMs = 1000 / job.rate;
  const latencies = new Float64Array(total);
  let sent = 0;
  let done = 0;
  let non2xx = 0;
  let errors = 0;
  const start = performance.now();

  return new Promise((resolve) => {
    const finish = (i: number, dueAt: number, ok: boolean): void => {
      latencies[i] = performance.now() - dueAt;
      if (!ok) errors++;
      if (++done < total) return;
      const wall = (performance.now() - start) / 1000;
      agent.destroy();
      const sorted = latencies.sort();
      resolve({
        rps: total / wall,
        p50: ms2(pct(sorted, 0.5)),
        p90: ms2(pct(sorted, 0.9)),
        p99: ms2(pct(sorted, 0.99)),
        max: ms2(sorted[total - 1] ?? Number.NaN),
        non2xx,
        errors,
        total,
      });
    };
    const fire = (i: number, dueAt: number): void => {
      httpGet(agent, url, job.headers).then(
        ({ status }) => {
          if (status < 200 || status > 299) non2xx++;
          finish(i, dueAt, true);
        },
        () => finish(i, dueAt, false),
      );
    };
    const pump = (): void => {
      const due = Math.min(total, Math.floor((performance.now() - start) / stepMs) + 1);
      while (sent < due) {
        fire(sent, start + sent * stepMs);
        sent++;
      }
      if (sent < total) setTimeout(pump, 1);
    };
    pump();
  });
}
