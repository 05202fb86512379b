import { getEnvironmentData, isMainThread, setEnvironmentData, threadId } from 'node:worker_threads';
import { pino, type DestinationStream, type Logger } from 'pino';
import { defaultLogLevel, resolveLogFormat, type LogFormat } from './log-format.ts';
import { prettyLabelLine, prettyLogLine } from './log-pretty.ts';

/**
 * Logs (pino) on stderr, so stdout stays free for command output (`gex parse`, `gex levels`). LOG_FORMAT
 * (platform/log-format.ts) picks JSON lines or readable lines; both are written synchronously, so a fatal line is
 * out before the process exits. LOG_LEVEL (`--log-level`, copied to the environment by the CLI before any logger
 * exists) sets the level; unset, it is info for JSON and warn for readable lines.
 */
/** What a worker thread takes from the main thread's logger: its stderr is not the terminal's, its decisions are. */
interface ThreadLogSettings {
  readonly format: LogFormat;
  readonly level: string;
  readonly color: boolean;
}
const THREAD_LOG_SETTINGS = 'gex.log';
const inherited = isMainThread ? undefined : (getEnvironmentData(THREAD_LOG_SETTINGS) as ThreadLogSettings | undefined);

export const logFormat: LogFormat = inherited?.format ?? resolveLogFormat(process.env.LOG_FORMAT, process.stderr.isTTY === true);

const sink = pino.destination({ dest: 2, sync: true });
const color = inherited?.color ?? (logFormat === 'pretty' && process.stderr.isTTY === true && process.stderr.hasColors());

const destination: DestinationStream = logFormat === 'pretty' ? { write: (line) => sink.write(prettyLogLine(line, { color })) } : sink;

export const rootLogger: Logger = pino(
  {
    level: inherited?.level ?? (process.env.LOG_LEVEL || defaultLogLevel(logFormat)),
    // A worker thread's lines name it (the ingest thread): same pid, another event loop.
    base: isMainThread ? { pid: process.pid } : { pid: process.pid, thread: threadId },
    timestamp: pino.stdTimeFunctions.isoTime,
  },
  destination,
);

// Worker threads started from here on log as this thread does (format, level, colour).
if (isMainThread)
  setEnvironmentData(THREAD_LOG_SETTINGS, { format: logFormat, level: rootLogger.level, color } satisfies ThreadLogSettings);

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
