/** How log records are written on stderr: one pino JSON object a line, or readable text lines. */
export type LogFormat = 'json' | 'pretty';

/** The LOG_FORMAT setting: a format, or `auto` (pretty when stderr is a terminal, JSON otherwise). */
export const LOG_FORMAT_SETTINGS = ['auto', 'json', 'pretty'] as const;
export type LogFormatSetting = (typeof LOG_FORMAT_SETTINGS)[number];

/**
 * The format of this process's logs. `auto` (the default) looks at the stream the logs go to (stderr): a terminal
 * gets readable lines, anything else (a pipe, a file, journald, a container log driver) gets JSON, so log shippers
 * see what they always saw. An unknown value counts as `auto`: the settings check reports it and stops the command.
 */
export function resolveLogFormat(setting: string | undefined, stderrIsTerminal: boolean): LogFormat {
  if (setting === 'json' || setting === 'pretty') return setting;
  return stderrIsTerminal ? 'pretty' : 'json';
}

/**
 * The level when LOG_LEVEL is unset: `info` for JSON (what shippers and dashboards expect), `warn` for a
 * person at a terminal (start-up chatter hidden; the roles print a ready line and a status line instead).
 */
export function defaultLogLevel(format: LogFormat): 'info' | 'warn' {
  return format === 'pretty' ? 'warn' : 'info';
}
