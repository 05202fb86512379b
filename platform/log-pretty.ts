/**
 * Readable log lines for a terminal, from pino's JSON lines: `12:04:05.123 WARN   bus: lag collection failed topic=x`,
 * an error's stack on the lines below. Written in place of the JSON when the logs are pretty (platform/log.ts).
 */

export interface PrettyOptions {
  /** ANSI colours (only when the terminal supports them). */
  readonly color: boolean;
}

const LEVELS: Readonly<Record<number, { readonly label: string; readonly color: string }>> = {
  10: { label: 'TRACE', color: '90' },
  20: { label: 'DEBUG', color: '90' },
  30: { label: 'INFO', color: '32' },
  40: { label: 'WARN', color: '33' },
  50: { label: 'ERROR', color: '31' },
  60: { label: 'FATAL', color: '1;31' },
};

/** Fields shown in the line's head (or not at all), never repeated as key=value. */
const HEAD_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'component', 'msg']);

/** Width of the label column: the longest label (STATUS, see prettyLabelLine) and a space. */
const LABEL_WIDTH = 7;

const paint = (on: boolean, code: string, text: string): string => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Local wall-clock time of day with milliseconds: `09:05:03.042`. */
export function clockTime(date: Date): string {
  const ms = String(date.getMilliseconds()).padStart(3, '0');
  return `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}.${ms}`;
}

/** A value as the terminal shows it after `key=`: bare when it has no space, quote or `=`, else JSON. */
function showValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/** The stack of a serialized error (pino's `err`), or undefined when the value is not one. */
function stackOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'stack' in err && typeof err.stack === 'string' ? err.stack : undefined;
}

/** One line of the time and label columns followed by `text` (also the status and ready lines of the roles). */
export function prettyLabelLine(date: Date, label: string, labelColor: string, text: string, opts: PrettyOptions): string {
  return `${paint(opts.color, '2', clockTime(date))} ${paint(opts.color, labelColor, label.padEnd(LABEL_WIDTH - 1))} ${text}\n`;
}

/** One pino JSON line as a readable line (newline-terminated). A line that is not a JSON object is passed through. */
export function prettyLogLine(json: string, opts: PrettyOptions): string {
  let record: unknown;
  try {
    record = JSON.parse(json);
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return `${json.trimEnd()}\n`;
  const fields = record as Record<string, unknown>;
  const level = LEVELS[Number(fields.level)] ?? { label: String(fields.level), color: '0' };
  const time = typeof fields.time === 'string' || typeof fields.time === 'number' ? new Date(fields.time) : new Date();
  const component = typeof fields.component === 'string' ? `${paint(opts.color, '36', fields.component)}: ` : '';
  // An error with a stack goes on the lines below, indented; anything else in `err` is a plain field.
  const stack = stackOf(fields.err);
  const extras = Object.entries(fields)
    .filter(([key]) => !HEAD_FIELDS.has(key) && !(key === 'err' && stack !== undefined))
    .map(([key, value]) => ` ${paint(opts.color, '2', `${key}=`)}${showValue(value)}`)
    .join('');
  const err =
    stack === undefined
      ? ''
      : stack
          .split('\n')
          .map((line) => `\n    ${line}`)
          .join('');
  const msg = typeof fields.msg === 'string' ? fields.msg : fields.msg === undefined ? '' : JSON.stringify(fields.msg);
  const text = `${component}${msg}${extras}${err}`;
  return prettyLabelLine(time, level.label, level.color, text, opts);
}
