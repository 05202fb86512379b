import PQueue from 'p-queue';
import { childLogger, type Logger } from '#platform/log.ts';
import { retryDelay, waitDelay, type RetryPolicy } from '#platform/steps/retry-policy.ts';
import { restRequestSeconds, restRequestsTotal } from './metrics.ts';

export interface RestPollerOptions {
  readonly venue: string;
  /** Requests in flight at once. Default 2. */
  readonly concurrency?: number;
  /** At most `intervalCap` request starts per sliding `intervalMs` window (retries count). Default 10 / 1000 ms. */
  readonly intervalCap?: number;
  readonly intervalMs?: number;
  /** Per-attempt timeout. Default 10 s. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt on network errors, timeouts, 429 and 5xx. Default 3. */
  readonly retries?: number;
  readonly backoff?: RetryPolicy;
  readonly fetch?: typeof fetch;
  readonly random?: () => number;
}

export interface RestRequest {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

export interface RestResponse {
  readonly status: number;
  readonly body: string;
  /** When the successful attempt was sent (ms): what a paced caller counts its pace from. */
  readonly sentAt: number;
  readonly receivedAt: number;
}

/** A non-retryable HTTP status (4xx other than 429), or the last failure once the retries are used up. */
export class RestError extends Error {
  readonly status: number | null;
  readonly url: string;
  constructor(message: string, url: string, status: number | null, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RestError';
    this.url = url;
    this.status = status;
  }
}

class RetryableError extends Error {
  readonly retryAfterMs: number | null;
  readonly status: number | null;
  constructor(message: string, status: number | null, retryAfterMs: number | null, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

export interface ScheduleOptions {
  /** Run once right away (default true). */
  readonly immediate?: boolean;
}

/** REST retry delays: the shared policy (full jitter), 500 ms doubling to at most 30 s. */
const DEFAULT_REST_RETRY: RetryPolicy = { baseMs: 500, maxMs: 30_000 };

function parseRetryAfter(v: string | null): number | null {
  if (!v) return null;
  const s = Number(v);
  return Number.isFinite(s) && s >= 0 ? s * 1000 : null;
}

/**
 * Rate-limited, retrying REST client for one venue: every attempt goes through one p-queue (concurrency + sliding
 * window rate limit), has its own timeout, and failed attempts are retried with jittered exponential backoff.
 * `schedule` runs periodic jobs (instrument refresh, Binance open interest) without overlapping runs.
 */
export class RestPoller {
  readonly #o: RestPollerOptions;
  readonly #queue: PQueue;
  readonly #log: Logger;
  readonly #stop = new AbortController();
  /**
   * One controller per `request` call, aborted by `close()`. Queued and in-flight requests listen on their own
   * signal (p-queue, the retry sleep and the attempt each add one listener and remove it after use) instead of all
   * on `#stop`, which would pile one listener per queued request on a single signal (MaxListenersExceededWarning
   * when a venue queues more than 10 listing requests at start-up).
   */
  readonly #active = new Set<AbortController>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #fetch: typeof fetch;

  constructor(opts: RestPollerOptions) {
    this.#o = opts;
    this.#fetch = opts.fetch ?? fetch;
    this.#queue = new PQueue({
      concurrency: opts.concurrency ?? 2,
      intervalCap: opts.intervalCap ?? 10,
      interval: opts.intervalMs ?? 1000,
      strict: true,
    });
    this.#log = childLogger('rest').child({ venue: opts.venue });
  }

  /** Requests waiting in the queue. */
  get pending(): number {
    return this.#queue.size;
  }

  /** GET/POST with queueing, timeout and retries; resolves with a 2xx response. */
  async request(url: string, init: RestRequest = {}): Promise<RestResponse> {
    const retries = this.#o.retries ?? 3;
    const backoff = this.#o.backoff ?? DEFAULT_REST_RETRY;
    let last: unknown = null;
    const stop = new AbortController();
    this.#active.add(stop);
    try {
      for (let attempt = 0; attempt <= retries; attempt++) {
        if (this.#stop.signal.aborted) throw new RestError('poller closed', url, null);
        try {
          return await this.#queue.add(() => this.#attempt(url, init, stop.signal), { signal: stop.signal });
        } catch (err) {
          if (!(err instanceof RetryableError))
            throw err instanceof RestError ? err : new RestError(String(err), url, null, { cause: err });
          last = err;
          if (attempt === retries) break;
          const wait = Math.max(err.retryAfterMs ?? 0, retryDelay(attempt, backoff, this.#o.random));
          this.#log.warn({ url, attempt, waitMs: wait, err: err.message }, 'REST attempt failed; retrying');
          await waitDelay(wait, stop.signal);
        }
      }
    } finally {
      this.#active.delete(stop);
    }
    const status = last instanceof RetryableError ? last.status : null;
    throw new RestError(`gave up after ${retries + 1} attempts: ${String((last as Error | null)?.message)}`, url, status, { cause: last });
  }

  /** `request` + JSON.parse. */
  async json(url: string, init?: RestRequest): Promise<unknown> {
    const res = await this.request(url, init);
    return JSON.parse(res.body) as unknown;
  }

  async #attempt(url: string, init: RestRequest, stop: AbortSignal): Promise<RestResponse> {
    const venue = this.#o.venue;
    const ctl = new AbortController();
    const onStop = (): void => ctl.abort();
    stop.addEventListener('abort', onStop, { once: true });
    const timer = setTimeout(() => ctl.abort(new Error('timeout')), this.#o.timeoutMs ?? 10_000);
    const end = restRequestSeconds.startTimer({ venue });
    try {
      const sentAt = Date.now();
      const res = await this.#fetch(url, {
        method: init.method ?? 'GET',
        ...(init.headers ? { headers: init.headers } : {}),
        ...(init.body !== undefined ? { body: init.body } : {}),
        signal: ctl.signal,
      });
      const body = await res.text();
      if (res.ok) {
        restRequestsTotal.inc({ venue, outcome: 'ok' });
        return { status: res.status, body, sentAt, receivedAt: Date.now() };
      }
      if (res.status === 429 || res.status >= 500) {
        restRequestsTotal.inc({ venue, outcome: `http_${res.status}` });
        throw new RetryableError(`HTTP ${res.status}`, res.status, parseRetryAfter(res.headers.get('retry-after')));
      }
      restRequestsTotal.inc({ venue, outcome: `http_${res.status}` });
      throw new RestError(`HTTP ${res.status}: ${body.slice(0, 200)}`, url, res.status);
    } catch (err) {
      if (err instanceof RetryableError || err instanceof RestError) throw err;
      const timedOut = ctl.signal.aborted && !this.#stop.signal.aborted;
      restRequestsTotal.inc({ venue, outcome: timedOut ? 'timeout' : 'network' });
      if (this.#stop.signal.aborted) throw new RestError('poller closed', url, null, { cause: err });
      throw new RetryableError(timedOut ? 'timeout' : `network: ${(err as Error).message}`, null, null, { cause: err });
    } finally {
      end();
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    }
  }

  /**
   * Run `task` every `everyMs` (measured start to start; a slow run delays the next, runs never overlap).
   * Errors are logged and counted, never thrown. Returns a cancel function.
   */
  schedule(name: string, everyMs: number, task: (signal: AbortSignal) => Promise<void>, opts: ScheduleOptions = {}): () => void {
    let cancelled = false;
    let timer: NodeJS.Timeout | null = null;
    const run = async (): Promise<void> => {
      if (timer) this.#timers.delete(timer);
      if (cancelled || this.#stop.signal.aborted) return;
      const started = Date.now();
      try {
        await task(this.#stop.signal);
      } catch (err) {
        if (!this.#stop.signal.aborted) {
          restRequestsTotal.inc({ venue: this.#o.venue, outcome: 'task_error' });
          this.#log.error({ task: name, err: (err as Error).message }, 'scheduled task failed');
        }
      }
      if (cancelled || this.#stop.signal.aborted) return;
      timer = setTimeout(() => void run(), Math.max(0, everyMs - (Date.now() - started)));
      this.#timers.add(timer);
    };
    timer = setTimeout(() => void run(), opts.immediate === false ? everyMs : 0);
    this.#timers.add(timer);
    return () => {
      cancelled = true;
      if (timer) {
        clearTimeout(timer);
        this.#timers.delete(timer);
      }
    };
  }

  /** Cancel schedules, drop queued requests, abort in-flight ones. */
  async close(): Promise<void> {
    this.#stop.abort();
    for (const c of this.#active) c.abort();
    this.#active.clear();
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#queue.clear();
    await this.#queue.onIdle();
  }
}
