import type { Logger } from '#platform/log.ts';
import type { RuntimeContext } from './context.ts';

/** Exit code of a role that hit an unhandled rejection or exception (a supervisor restarts it). */
export const UNHANDLED_EXIT_CODE = 70;

/**
 * An unhandled rejection or uncaught exception anywhere in a long-running role is a bug: the role logs it as a
 * fatal structured line (kind, error with stack) and exits with UNHANDLED_EXIT_CODE at once, so its supervisor
 * (systemd, the chaos harness, Kubernetes) restarts it, instead of running half-alive (a dead consumer, a stopped
 * snapshot loop). The log destination is synchronous (platform/log.ts), so the line is written before the exit.
 */
export function exitOnUnhandled(log: Logger): void {
  const fail = (kind: 'unhandled rejection' | 'uncaught exception') => (err: unknown) => {
    log.fatal({ err, kind }, `${kind}: the role exits (code ${UNHANDLED_EXIT_CODE}) so its supervisor restarts it`);
    process.exit(UNHANDLED_EXIT_CODE);
  };
  process.on('unhandledRejection', fail('unhandled rejection'));
  process.on('uncaughtException', fail('uncaught exception'));
}

/**
 * Runs until SIGINT/SIGTERM, then shuts the context down gracefully (consumers finish and commit their
 * in-flight batch, producers flush, the store closes). A second signal exits at once. An unhandled rejection or
 * exception meanwhile ends the process (exitOnUnhandled).
 */
export function untilSignal(ctx: RuntimeContext): Promise<number> {
  exitOnUnhandled(ctx.log);
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
