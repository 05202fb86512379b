/**
 * Polls both API processes while a scenario runs (every `everyMs`: /v2/health and /v2/tape/recent on each), and
 * keeps every answer's time and status (0 = no answer within 3 s: refused connection or timeout). An API a scenario
 * killed on purpose is not probed while it is down, and a probe it had in flight when it was killed is recorded as
 * KILLED_IN_FLIGHT, not as unanswered (a SIGKILLed process cannot answer; a client retries on the other replica).
 */
export interface Probe {
  readonly t: number;
  readonly url: string;
  readonly status: number;
}

const PATHS = ['/v2/health', '/v2/tape/recent?symbol=BTCUSDT&limit=20'];
/** Status of a probe whose API was killed on purpose while it was in flight. */
export const KILLED_IN_FLIGHT = -1;

export class ApiPoller {
  readonly probes: Probe[] = [];
  #timer: NodeJS.Timeout | null = null;
  #inFlight = 0;
  readonly #excluded = new Set<string>();

  constructor(
    private readonly apiUrls: readonly string[],
    private readonly apiKey: string,
    private readonly everyMs = 500,
  ) {}

  start(): void {
    this.#timer ??= setInterval(() => {
      if (this.#inFlight > 8) return; // a frozen API: do not pile up requests
      for (const base of this.apiUrls) if (!this.#excluded.has(base)) for (const p of PATHS) void this.#probe(base, `${base}${p}`);
    }, this.everyMs);
  }

  async #probe(base: string, url: string): Promise<void> {
    this.#inFlight++;
    const t = Date.now();
    let status: number;
    try {
      const res = await fetch(url, { headers: { 'X-API-Key': this.apiKey }, signal: AbortSignal.timeout(3000) });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = this.#excluded.has(base) ? KILLED_IN_FLIGHT : 0;
    } finally {
      this.#inFlight--;
    }
    this.probes.push({ t, url, status });
  }

  /** Stops (or resumes) probing one API, e.g. while a scenario has killed it on purpose. */
  exclude(base: string, on: boolean): void {
    if (on) this.#excluded.add(base);
    else this.#excluded.delete(base);
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** 5xx answers among the probes sent in [from, to). */
  count5xx(from: number, to: number): number {
    return this.probes.filter((p) => p.t >= from && p.t < to && p.status >= 500).length;
  }

  /** Probes sent in [from, to) that got no answer. */
  countNoAnswer(from: number, to: number): number {
    return this.probes.filter((p) => p.t >= from && p.t < to && p.status === 0).length;
  }

  /** Time of the first probe at or after `from` from which every later probe (until `to`) answered 200; null if none. */
  healthySince(from: number, to = Infinity): number | null {
    const window = this.probes.filter((p) => p.t >= from && p.t < to).sort((a, b) => a.t - b.t);
    let since: number | null = null;
    for (const p of window) {
      if (p.status !== 200) since = null;
      else since ??= p.t;
    }
    return since;
  }
}
