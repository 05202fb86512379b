/**
 * Small typed readers and result constructors shared by the venue parsers. Frames are parsed to `unknown`
 * and narrowed field by field; numbers may arrive as JSON numbers or decimal strings.
 */
import { decimalExponent, POW10 } from '#platform/decimal.ts';
import { SYMBOL_BASE, SYMBOLS } from '#schemas/events.ts';
import type { MarketEvent, MarketSymbol } from '#schemas/events.ts';
import type { ControlFrame, ParseResult, RestParseResult } from './types.ts';

export type Obj = Readonly<Record<string, unknown>>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON.parse that never throws: `undefined` for invalid JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Value readers: the same rules as `str` / `num` / `idOf` applied to a value the caller read itself. Hot paths read
 * each field at its own site (`t['p']`), which keeps that property load monomorphic, then narrow it here.
 */
export function strValue(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/** A finite number from a JSON number or a non-empty decimal string, else null. */
export function numValue(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v !== '') {
    const n = plainDecimalAt(v, 0, v.length);
    if (n === n) return n; // not NaN: a plain decimal
    const parsed = Number(v);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}

/**
 * `Number(s.slice(start, end))` for a plain decimal (optional '-', at most 15 digits, at most one '.', at least one
 * digit), else NaN. The digits form an exact integer m < 2^53 and the result is m / 10^fractionDigits, one correctly
 * rounded division, which is the double `Number` gives; anything else (exponents, '+', spaces, longer digit runs) is
 * left to `Number`. Reads the range in place, so a caller scanning a frame needs no slice.
 */
export function plainDecimalAt(s: string, start: number, end: number): number {
  const negative = s.charCodeAt(start) === 45; // '-'
  let i = negative ? start + 1 : start;
  let m = 0;
  let digits = 0;
  let dot = -1;
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
    } else if (c === 46 && dot === -1) {
      dot = i;
    } else {
      return Number.NaN;
    }
  }
  if (digits === 0 || digits > 15) return Number.NaN;
  const n = dot === -1 ? m : m / (POW10[end - dot - 1] ?? Number.NaN);
  return negative ? -n : n;
}

/** A trade / message id that may be a number or a string. */
export function idValue(v: unknown): string | null {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** A string field, or null. */
export function str(o: Obj, key: string): string | null {
  return strValue(o[key]);
}

/** A finite number from a JSON number or a non-empty decimal string, else null. */
export function num(o: Obj, key: string): number | null {
  return numValue(o[key]);
}

/** Like `num` but null for values <= 0 (venues send 0 / -1 for "no bid", "no IV"). */
export function positive(o: Obj, key: string): number | null {
  const n = num(o, key);
  return n !== null && n > 0 ? n : null;
}

/** A trade / message id that may be a number or a string. */
export function idOf(o: Obj, key: string): string | null {
  return idValue(o[key]);
}

export function obj(o: Obj, key: string): Obj | null {
  const v = o[key];
  return isObj(v) ? v : null;
}

export function arr(o: Obj, key: string): readonly unknown[] | null {
  const v = o[key];
  return Array.isArray(v) ? v : null;
}

/**
 * Removes binary floating-point noise from derived values (0.7844000000000001 -> 0.7844): the value rounded to 15
 * significant digits, exactly `Number(x.toPrecision(15))`. For 1e-6 <= |x| < 1e15 it is computed without a string:
 * m = round(|x| * 10^k) with k = 14 - decimal exponent, and m / 10^k (both exact or correctly rounded, as the string
 * round trip is). x is returned as is when it already is the double of an at most 15-digit decimal (m / 10^k === |x|);
 * a product landing on .5 and an exponent taken one off next to a power of ten (m outside 1e14..1e15) take the string
 * round trip.
 */
export function clean(x: number): number {
  const a = x < 0 ? -x : x;
  if (a < 1e15 && Math.floor(a) === a) return x + 0; // an integer below 1e15 has at most 15 digits (+0 turns -0 into 0)
  if (a >= 1e-6 && a < 1e15) {
    const scale = POW10[14 - decimalExponent(a)] ?? 0;
    const p = a * scale;
    const m = Math.round(p);
    const r = m / scale;
    if (r === a && m <= 1e15) return x;
    if (m > 1e14 && m < 1e15 && p - Math.floor(p) !== 0.5) return x < 0 ? -r : r;
  }
  return Number(x.toPrecision(15));
}

export function mul(a: number, b: number): number {
  return clean(a * b);
}

export function ivFromPercent(p: number | null): number | null {
  return p === null ? null : clean(p / 100);
}

const BASE_TO_SYMBOL: ReadonlyMap<string, MarketSymbol> = new Map(SYMBOLS.map((s) => [SYMBOL_BASE[s], s] as const));

/** Our symbol for a venue base coin ('BTC' -> 'BTCUSDT'), or null for untracked underlyings. */
export function symbolForBase(base: string): MarketSymbol | null {
  return BASE_TO_SYMBOL.get(base.toUpperCase()) ?? null;
}

/** Short stable hash (FNV-1a 32-bit, hex) for ids built from identifying fields. */
export function hash32(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** Id of a ticker / stats / index row: venue, instrument, family and venue ts identify it. */
export function rowId(venue: string, family: string, instrument: string, ts: number): string {
  return `${venue}:${family}:${instrument}:${ts}`;
}

// ---------------------------------------------------------------- results

export function events(list: readonly MarketEvent[]): ParseResult {
  return { ok: true, outcome: 'events', events: list };
}

export function ignored(kind: ControlFrame['kind'], detail?: string, reply?: string): ParseResult {
  return { ok: true, outcome: 'ignored', events: [], control: controlFrame(kind, detail, reply) };
}

/** A control frame holding only the fields that are set (explicit literals, no object spread). */
function controlFrame(kind: ControlFrame['kind'], detail: string | undefined, reply: string | undefined): ControlFrame {
  if (reply === undefined) return detail === undefined ? { kind } : { kind, detail };
  return detail === undefined ? { kind, reply } : { kind, detail, reply };
}

export function deadLetter(reason: string, channel = ''): ParseResult {
  return { ok: false, outcome: 'dead_letter', reason, channel };
}

/** Events, or "ignored: untracked" when a frame only carried underlyings we do not track. */
export function eventsOrUntracked(list: readonly MarketEvent[], what: string): ParseResult {
  return list.length > 0 ? events(list) : ignored('untracked', what);
}

/** Wraps a parser so an unexpected exception becomes a dead letter instead of a throw. */
export function guard<C>(fn: (frame: string, ctx: C) => ParseResult): (frame: string, ctx: C) => ParseResult {
  return (frame, ctx) => {
    try {
      return fn(frame, ctx);
    } catch (err) {
      return deadLetter(`parser error: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
}

export function restGuard<C>(fn: (body: string, ctx: C) => RestParseResult): (body: string, ctx: C) => RestParseResult {
  return (body, ctx) => {
    try {
      return fn(body, ctx);
    } catch (err) {
      return { ok: false, reason: `parser error: ${err instanceof Error ? err.message : String(err)}` };
    }
  };
}

/** Splits `items` into chunks of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** USD and the USD stablecoins prices are quoted in. */
export function isUsd(ccy: string): boolean {
  return ccy === 'USD' || ccy === 'USDT' || ccy === 'USDC';
}
