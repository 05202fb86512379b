import type { RuntimeContext } from './context.ts';

/**
 * Runs until SIGINT/SIGTERM, then shuts the context down gracefully (consumers finish and commit their
 * in-flight batch, producers flush, the store closes). A second signal exits at once.
 */
export function untilSignal(ctx: RuntimeContext): Promise<number> {
  return new Promise((resolve) => {
    let stopping = false;
    const onSignal = (sig: NodeJS.Signals): void => {
      if (stopping) process.exit(130);
      stopping = true;
      ctx.log.info({ signal: sig }, 'shutting down');
      void ctx.shutdown().then(() => resolve(0));
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}
