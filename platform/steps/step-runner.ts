/**
 * One runner for every named pipeline step (bus publish, bus consume, raw insert, snapshot cycle). A step returns
 * a tagged result (ok / drop / dead_letter); a step that throws is classified:
 *   retry        -> try again after the shared jittered backoff (retry-policy.ts), while the policy allows;
 *   skip         -> a drop result, counted;
 *   dead_letter  -> the step's dead-letter hook, counted, a dead_letter result;
 *   fail         -> thrown to the caller (e.g. a bus consumer then redelivers the batch).
 * Retries exhausted, or the caller's signal aborted during a backoff, also throw the last error. Every attempt is
 * timed (gex_pipeline_step_duration_seconds{step,outcome}) and every failure logged with the step's context fields.
 */
import { childLogger, type Logger } from '../log.ts';
import { mayRetry, retryDelay, waitDelay, type RandomSource, type RetryPolicy } from './retry-policy.ts';
import { stepMetrics, type StepOutcome } from './step-metrics.ts';

export type StepResult<T> =
  | { readonly kind: 'ok'; readonly value: T }
  | { readonly kind: 'drop'; readonly reason: string }
  | { readonly kind: 'dead_letter'; readonly reason: string; readonly error?: unknown };

export const ok = <T>(value: T): StepResult<T> => ({ kind: 'ok', value });
export const drop = <T = never>(reason: string): StepResult<T> => ({ kind: 'drop', reason });
export const deadLetter = <T = never>(reason: string, error?: unknown): StepResult<T> => ({ kind: 'dead_letter', reason, error });

export type FailureClass = 'retry' | 'skip' | 'dead_letter' | 'fail';

export interface PipelineStep<I, O> {
  /** Metric label and log field; a fixed, low-cardinality name such as 'bus.publish'. */
  readonly name: string;
  readonly run: (input: I) => Promise<StepResult<O>>;
  /** What a thrown error means, given the attempts made so far (1 after the first). Default: retry. */
  readonly classify?: (err: unknown, attempts: number) => FailureClass;
  /** Backoff between retries. Default DEFAULT_STEP_RETRY. */
  readonly retry?: RetryPolicy;
  /** Called for a dead_letter classification or result, before the runner returns. */
  readonly onDeadLetter?: (input: I, reason: string, error: unknown) => Promise<void> | void;
  /** Extra log fields for an input (topic, partition, symbol, ...). */
  readonly context?: (input: I) => Record<string, unknown>;
  readonly log?: Logger;
  readonly random?: RandomSource;
}

export const DEFAULT_STEP_RETRY: RetryPolicy = { baseMs: 100, maxMs: 10_000 };

const defaultLog = childLogger('step');

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Runs `step` on `input`; `signal` aborts the retry waits (the attempt in progress always finishes). */
export async function runStep<I, O>(step: PipelineStep<I, O>, input: I, signal?: AbortSignal): Promise<StepResult<O>> {
  const log = step.log ?? defaultLog;
  const policy = step.retry ?? DEFAULT_STEP_RETRY;
  const labels = (outcome: StepOutcome): { step: string; outcome: StepOutcome } => ({ step: step.name, outcome });
  for (let attempts = 1; ; attempts++) {
    const started = performance.now();
    const seconds = (): number => (performance.now() - started) / 1000;
    let result: StepResult<O>;
    try {
      result = await step.run(input);
    } catch (err) {
      const cls = step.classify?.(err, attempts) ?? 'retry';
      const fields = { step: step.name, attempts, err: errorText(err), ...step.context?.(input) };
      if (cls === 'retry' && mayRetry(attempts, policy) && !signal?.aborted) {
        stepMetrics.duration.observe(labels('retry'), seconds());
        stepMetrics.retries.inc({ step: step.name });
        const delay = retryDelay(attempts - 1, policy, step.random);
        log.warn({ ...fields, retryInMs: delay }, 'step failed; retrying');
        if (await waitDelay(delay, signal)) continue;
        log.warn(fields, 'step retry aborted');
        throw err;
      }
      if (cls === 'skip') {
        result = drop(errorText(err));
      } else if (cls === 'dead_letter') {
        result = deadLetter(errorText(err), err);
      } else {
        stepMetrics.duration.observe(labels('failed'), seconds());
        log.warn(fields, 'step failed');
        throw err;
      }
      log.warn({ ...fields, outcome: result.kind }, 'step failed; input not processed');
    }
    stepMetrics.duration.observe(labels(result.kind), seconds());
    if (result.kind === 'drop') stepMetrics.skipped.inc({ step: step.name });
    else if (result.kind === 'dead_letter') {
      stepMetrics.deadLetters.inc({ step: step.name });
      await step.onDeadLetter?.(input, result.reason, result.error);
    }
    return result;
  }
}
