/**
 * A chaos campaign (`npm run chaos -- --repeat N [--contention K]`): the scenarios run N times, each run on a fresh
 * cluster with its own fault instant, and one table per scenario over the runs. Pure: rows in, table out.
 */
import type { ScenarioRow } from './run-scenario.ts';
import { markdownTable, passed } from './table.ts';

/** Fault instants of a campaign run, as a fraction of the flood: uniform in [FAULT_AT_MIN, FAULT_AT_MAX]. */
export const FAULT_AT_MIN = 0.15;
export const FAULT_AT_MAX = 0.7;

/** The fault instant of run `i` (0-based) from a uniform draw u in [0, 1); run 0 keeps the single run's 0.3. */
export function faultAtOf(i: number, u: number): number {
  return i === 0 ? 0.3 : FAULT_AT_MIN + (FAULT_AT_MAX - FAULT_AT_MIN) * u;
}

export interface ScenarioSummary {
  readonly id: string;
  readonly name: string;
  readonly runs: number;
  readonly passes: number;
  readonly skipped: number;
  readonly lost: number;
  /** Trades stored after the raw writers reported caught up (not lost), and the longest such delay over the runs. */
  readonly late: number;
  readonly lateMaxSeconds: number | null;
  readonly doubled: number;
  /** Processes that exited by themselves, over all runs. */
  readonly crashed: number;
  readonly apiNoAnswer: number;
  /** Time to recover over the runs that recovered (null when none did); nearest-rank median. */
  readonly recoverP50: number | null;
  readonly recoverMax: number | null;
  /** Runs whose data or API never recovered. */
  readonly notRecovered: number;
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.ceil(s.length / 2) - 1] as number;
}

/** One summary per scenario, in the order of first appearance; `runs` holds each run's rows. */
export function summarize(runs: readonly (readonly ScenarioRow[])[]): ScenarioSummary[] {
  const by = new Map<string, ScenarioRow[]>();
  for (const r of runs.flat()) {
    const rows = by.get(r.id);
    if (rows === undefined) by.set(r.id, [r]);
    else rows.push(r);
  }
  return [...by.values()].map((rows) => {
    const ran = rows.filter((r) => r.skipped === undefined);
    const recovered = ran.flatMap((r) => (r.recoverSeconds === null ? [] : [r.recoverSeconds]));
    const first = rows[0] as ScenarioRow;
    return {
      id: first.id,
      name: first.name,
      runs: rows.length,
      passes: ran.filter(passed).length,
      skipped: rows.length - ran.length,
      lost: ran.reduce((n, r) => n + r.lost, 0),
      late: ran.reduce((n, r) => n + r.late, 0),
      lateMaxSeconds: ran.reduce<number | null>((m, r) => (r.lateSeconds === null ? m : Math.max(m ?? 0, r.lateSeconds)), null),
      doubled: ran.reduce((n, r) => n + r.doubled, 0),
      crashed: ran.reduce((n, r) => n + r.crashed.length, 0),
      apiNoAnswer: ran.reduce((n, r) => n + r.apiNoAnswerDuring, 0),
      recoverP50: median(recovered),
      recoverMax: recovered.length === 0 ? null : Math.max(...recovered),
      notRecovered: ran.length - recovered.length,
    };
  });
}

/** A campaign passes when every run of every scenario that ran passed (0 lost, 0 doubled, 0 crashed). */
export function campaignPassed(s: readonly ScenarioSummary[]): boolean {
  return s.every((x) => x.passes === x.runs - x.skipped);
}

const COLUMNS: readonly [string, (s: ScenarioSummary) => string][] = [
  ['scenario', (s) => `${s.id} ${s.name}`],
  ['runs', (s) => String(s.runs)],
  ['passes', (s) => String(s.passes)],
  ['skipped', (s) => String(s.skipped)],
  ['lost', (s) => String(s.lost)],
  ['late (max s)', (s) => (s.late === 0 ? '0' : `${s.late} (${s.lateMaxSeconds?.toFixed(0) ?? '?'})`)],
  ['doubled', (s) => String(s.doubled)],
  ['crashed', (s) => String(s.crashed)],
  ['API no answer', (s) => String(s.apiNoAnswer)],
  ['recover s p50', (s) => (s.recoverP50 === null ? 'n/a' : s.recoverP50.toFixed(1))],
  ['recover s max', (s) => (s.recoverMax === null ? 'n/a' : s.recoverMax.toFixed(1))],
  ['not recovered', (s) => String(s.notRecovered)],
];

export function formatCampaign(s: readonly ScenarioSummary[]): string {
  return markdownTable(COLUMNS, s);
}
