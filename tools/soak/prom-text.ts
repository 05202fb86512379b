/**
 * Reads samples from a Prometheus text exposition (pure). Enough for the soak's figures: sum or max of one metric
 * over the series whose labels match, ignoring HELP/TYPE lines and timestamps.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, '$1');
    const v = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    if (!Number.isNaN(v)) out.push({ name: m[1] as string, labels, value: v });
  }
  return out;
}

type Match = (labels: Readonly<Record<string, string>>) => boolean;
const all: Match = () => true;

/** Sum over the matching series; null when the metric has no series. */
export function sumOf(samples: readonly Sample[], name: string, match: Match = all): number | null {
  const xs = samples.filter((s) => s.name === name && match(s.labels));
  return xs.length === 0 ? null : xs.reduce((a, s) => a + s.value, 0);
}

/** Max over the matching series; null when the metric has no series. */
export function maxOf(samples: readonly Sample[], name: string, match: Match = all): number | null {
  const xs = samples.filter((s) => s.name === name && match(s.labels));
  return xs.length === 0 ? null : Math.max(...xs.map((s) => s.value));
}
