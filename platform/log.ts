import { pino, type DestinationStream, type Logger } from 'pino';
import { defaultLogLevel, resolveLogFormat, type LogFormat } from './log-format.ts';
import { prettyLabelLine, prettyLogLine } from './log-pretty.ts';

/**
 * Logs (pino) on stderr, so stdout stays free for command output (`gex parse`, `gex levels`). LOG_FORMAT
 * (platform/log-format.ts) picks JSON lines or readable lines; both are written synchronously, so a fatal line is
 * out before the process exits. LOG_LEVEL (`--log-level`, copied to the environment by the CLI before any logger
 * exists) sets the level; unset, it is info for JSON and warn for readable lines.
 */
export const logFormat: LogFormat = resolveLogFormat(process.env.LOG_FORMAT, process.stderr.isTTY === true);

const sink = pino.destination({ dest: 2, sync: true });
const color = logFormat === 'pretty' && process.stderr.isTTY === true && process.stderr.hasColors();

const destination: DestinationStream = logFormat === 'pretty' ? { write: (line) => sink.write(prettyLogLine(line, { color })) } : sink;

export const rootLogger: Logger = pino(
  {
    level: process.env.LOG_LEVEL || defaultLogLevel(logFormat),
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  },
  destination,
);

export function childLogger(component: string): Logger {
  return rootLogger.child({ component });
}

/** Colour of the label of a terminal line (ANSI SGR code). */
const TERMINAL_LABEL_COLOR = { READY: '1;32', STATUS: '1;34' } as const;

/**
 * Writes one line for the person at the terminal (the roles' ready and status lines) in the log's columns,
 * whatever the log level. Nothing when the logs are JSON: those lines are not log records, and the metrics
 * endpoint serves the same figures to machines.
 */
export function writeTerminalLine(label: keyof typeof TERMINAL_LABEL_COLOR, text: string, now: Date = new Date()): void {
  if (logFormat === 'pretty') sink.write(prettyLabelLine(now, label, TERMINAL_LABEL_COLOR[label], text, { color }));
}

export type { Logger };
