import type { Logger } from '#platform/log.ts';
import type { RetryPolicy } from '#platform/steps/retry-policy.ts';
import { ok, runStep, type PipelineStep } from '#platform/steps/step-runner.ts';
import type { MarketSymbol } from '#schemas/events.ts';
import { runCycle, type CycleContext, type CycleResult } from './cycle.ts';
import { AbortedError } from './durability.ts';
import { recordSnapshotAt } from './metrics.ts';
import type { SnapshotSource } from './snapshot-record.ts';

export interface CycleInput {
  readonly symbol: MarketSymbol;
  readonly tick: number;
  readonly source: SnapshotSource;
}

/** A failed cycle (store hiccup) is tried again after the shared backoff, at most 3 times in all, then skipped. */
const CYCLE_RETRY: RetryPolicy = { baseMs: 250, maxMs: 2_000 };
const CYCLE_ATTEMPTS = 3;

/**
 * One snapshot cycle as a pipeline step ('snapshots.cycle'): timed, retried and logged by the step runner. The
 * cycles are idempotent (dedup tokens, a stored tick is completed from its rows), so a retry is safe. A cycle cut
 * by a stop (AbortedError) or still failing after the retries is dropped (logged, gex_pipeline_step_skipped_total):
 * the next tick carries on. A tick without data is an ok step whose result says `skipped`.
 */
export function cycleRunner(
  ctx: CycleContext,
  signal: AbortSignal,
  log: Logger,
  onCycle?: (r: CycleResult) => void,
): (input: CycleInput) => Promise<void> {
  const step: PipelineStep<CycleInput, CycleResult> = {
    name: 'snapshots.cycle',
    log,
    retry: CYCLE_RETRY,
    classify: (err, attempts) => (err instanceof AbortedError || attempts >= CYCLE_ATTEMPTS ? 'skip' : 'retry'),
    context: (i) => ({ symbol: i.symbol, tick: new Date(i.tick).toISOString(), source: i.source }),
    run: async ({ symbol, tick, source }) => ok(await runCycle(ctx, symbol, tick, source)),
  };
  return async (input) => {
    try {
      const r = await runStep(step, input, signal);
      if (r.kind !== 'ok') return;
      if (r.value.kind === 'stored') recordSnapshotAt(input.symbol, input.tick);
      else log.info({ symbol: input.symbol, tick: new Date(input.tick).toISOString(), reason: r.value.reason }, 'tick skipped: no data');
      onCycle?.(r.value);
    } catch (err) {
      // Only a stop cuts a retry short: the tick is abandoned.
      log.debug({ err, symbol: input.symbol }, 'snapshot cycle abandoned on stop');
    }
  };
}
