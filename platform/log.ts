import { pino, type Logger } from 'pino';

/** Structured JSON logs (pino) on stderr, so stdout stays free for command output (`gex parse`, `gex levels`). */
export const rootLogger: Logger = pino(
  {
    level: process.env.LOG_LEVEL ?? 'info',
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  },
  pino.destination(2),
);

export function childLogger(component: string): Logger {
  return rootLogger.child({ component });
}

export type { Logger };
