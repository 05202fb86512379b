import { Counter, type CounterConfiguration, type LabelValues } from 'prom-client';

/**
 * Counting on per-frame hot paths. prom-client's `Counter.inc(labels, n)` hashes the label object into a key and looks
 * it up in the counter's map on every call (~150-250 ns); a frame loop at 100k frames/s pays a few % of a core for
 * one counter. A tally resolves a label set once: its `inc` adds to a plain number, and the counter takes the pending
 * sums when it is read (`flush` runs in the counter's `collect`, before every scrape and every `get()` /
 * `getMetricsAsJSON()`), so every read shows the same series and values as direct increments would.
 */
export interface CounterSeries {
  inc(n?: number): void;
}

interface Pending<L extends string> extends CounterSeries {
  readonly labels: LabelValues<L>;
  n: number;
}

/** A prom-client counter whose `collect` flushes its tallies first; count through `series(labels).inc()`. */
export class CounterTallies<L extends string> {
  readonly counter: Counter<L>;
  readonly #series = new Map<string, Pending<L>>();

  constructor(config: Omit<CounterConfiguration<L>, 'collect'>) {
    const flush = (): void => this.flush();
    this.counter = new Counter<L>({
      ...config,
      collect() {
        flush();
      },
    });
  }

  /** The series of one label set (the same object for the same labels): resolve it once, outside the hot loop. */
  series(labels: LabelValues<L>): CounterSeries {
    const key = Object.keys(labels)
      .sort()
      .map((k) => `${k}=${String(labels[k as L])}`)
      .join('\u0000');
    let p = this.#series.get(key);
    if (p === undefined) {
      const pending: Pending<L> = {
        labels: { ...labels },
        n: 0,
        inc(n = 1): void {
          pending.n += n;
        },
      };
      this.#series.set(key, (p = pending));
    }
    return p;
  }

  /** Adds every series' pending count to the counter (its `collect` runs this before every read). */
  flush(): void {
    for (const p of this.#series.values()) {
      if (p.n === 0) continue;
      const n = p.n;
      p.n = 0;
      this.counter.inc(p.labels, n);
    }
  }
}
