import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Store } from '#clickhouse/store.ts';
import { loadReferenceFiles, type FileReport, type LoadOptions } from './load.ts';
import { nextRunAt } from './schedule.ts';
import { ETF_ASSETS, ETF_REGIONS } from './targets.ts';

/**
 * The scheduled fetcher role: pulls each configured source (URLs in a JSON file, see
 * ops/reference-sources.example.json) on its publication schedule over HTTP and loads it through the
 * same loader as `gex load`. A source whose bytes did not change since its last load (HTTP 304 on
 * If-None-Match / If-Modified-Since, or the same SHA-256) is not reloaded. Failures (network, HTTP status,
 * invalid rows) are logged and retried at the next scheduled run; they never stop the role.
 */

export const sourceSchema = z.strictObject({
  name: z.string().min(1),
  kind: z.enum(['etf', 'cot', '13f']),
  /** One URL; for 13F the primary document then its information table. */
  urls: z.array(z.url()).min(1),
  every: z.enum(['day', 'week']),
  hour_utc: z.number().int().min(0).max(23),
  weekday: z.number().int().min(0).max(6).optional(),
  region: z.enum(ETF_REGIONS).optional(),
  asset: z.enum(ETF_ASSETS).optional(),
  variant: z.enum(['futures_only', 'combined']).optional(),
  /** COT: the report of a headerless current-week file (FinFutWk.txt tff, deacot.txt legacy); default by column count. */
  report: z.enum(['tff', 'legacy', 'disaggregated']).optional(),
  /** Extra request headers (SEC EDGAR asks for a User-Agent naming the requester). */
  headers: z.record(z.string(), z.string()).optional(),
});
export type FetchSource = z.output<typeof sourceSchema>;
export const sourcesSchema = z.array(sourceSchema);

export interface FetchOutcome {
  readonly source: string;
  readonly status: 'loaded' | 'unchanged' | 'failed';
  readonly reports: readonly FileReport[];
  readonly error?: string;
}

interface Validator {
  readonly etag: string | undefined;
  readonly lastModified: string | undefined;
  readonly sha: string;
  /** The body last loaded (a 304 on one URL of a multi-file source still needs it). */
  readonly text: string;
  readonly bytes: Buffer;
}

type FetchFn = (url: string, init: { headers: Record<string, string>; signal: AbortSignal }) => Promise<Response>;

export interface FetcherDeps {
  readonly store: Store;
  readonly fetch?: FetchFn;
  readonly timeoutMs?: number;
  readonly log?: (outcome: FetchOutcome) => void;
}

/** Fetches and loads one source once (the unit the schedule repeats). */
export class ReferenceFetcher {
  private readonly seen = new Map<string, Validator>();
  constructor(private readonly deps: FetcherDeps) {}

  async runOnce(src: FetchSource): Promise<FetchOutcome> {
    let outcome: FetchOutcome;
    try {
      outcome = await this.fetchAndLoad(src);
    } catch (err) {
      outcome = { source: src.name, status: 'failed', reports: [], error: (err as Error).message };
    }
    this.deps.log?.(outcome);
    return outcome;
  }

  private async get(src: FetchSource, url: string): Promise<Validator> {
    const fetchFn = this.deps.fetch ?? ((u, init) => fetch(u, init));
    const prev = this.seen.get(url);
    const headers: Record<string, string> = { ...(src.headers ?? {}) };
    if (prev?.etag !== undefined) headers['if-none-match'] = prev.etag;
    if (prev?.lastModified !== undefined) headers['if-modified-since'] = prev.lastModified;
    const res = await fetchFn(url, { headers, signal: AbortSignal.timeout(this.deps.timeoutMs ?? 60_000) });
    if (res.status === 304 && prev !== undefined) return prev;
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}`);
    const bytes = Buffer.from(await res.arrayBuffer());
    const sha = createHash('sha256').update(bytes).digest('hex');
    return {
      etag: res.headers.get('etag') ?? undefined,
      lastModified: res.headers.get('last-modified') ?? undefined,
      sha,
      text: bytes.toString('utf8'),
      bytes,
    };
  }

  private async fetchAndLoad(src: FetchSource): Promise<FetchOutcome> {
    const got: [string, Validator][] = [];
    for (const url of src.urls) got.push([url, await this.get(src, url)]);
    if (got.every(([url, v]) => this.seen.get(url)?.sha === v.sha)) return { source: src.name, status: 'unchanged', reports: [] };
    const opts: LoadOptions = {
      ...(src.region !== undefined && src.asset !== undefined ? { etfTarget: { region: src.region, asset: src.asset } } : {}),
      ...(src.variant !== undefined ? { cotVariant: src.variant } : {}),
      ...(src.report !== undefined ? { cotReport: src.report } : {}),
    };
    const reports = await loadReferenceFiles(
      this.deps.store,
      src.kind,
      got.map(([name, v]) => ({ name, text: v.text, bytes: v.bytes })),
      opts,
    );
    const refused = reports.filter((r) => r.errors.length > 0);
    if (refused.length > 0) return { source: src.name, status: 'failed', reports, error: `${refused.length} file(s) refused` };
    for (const [url, v] of got) this.seen.set(url, v);
    return { source: src.name, status: 'loaded', reports };
  }
}

/** Runs every source once at start, then at each scheduled instant, until stop(). */
export function startReferenceFetcher(deps: FetcherDeps & { readonly sources: readonly FetchSource[]; readonly clock?: () => number }): {
  stop(): Promise<void>;
} {
  const fetcher = new ReferenceFetcher(deps);
  const clock = deps.clock ?? Date.now;
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  let running: Promise<unknown> = Promise.resolve();
  const schedule = (src: FetchSource): void => {
    if (stopped) return;
    const delay = Math.max(0, nextRunAt(src, clock()) - clock());
    const t = setTimeout(
      () => {
        timers.delete(t);
        running = running.then(() => fetcher.runOnce(src)).finally(() => schedule(src));
      },
      Math.min(delay, 2 ** 31 - 1),
    );
    timers.add(t);
  };
  for (const src of deps.sources) {
    running = running.then(() => fetcher.runOnce(src));
    schedule(src);
  }
  return {
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await running.catch(() => undefined);
    },
  };
}
