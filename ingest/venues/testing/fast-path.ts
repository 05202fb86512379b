/**
 * Test-only: checks a venue parser's one-pass trade path (no JSON.parse) against its JSON.parse path on recorded
 * frames and on variants of them: members reordered, whitespace, truncations, escapes (in a name and in values), a
 * repeated member, nested members, and per trade field a missing field, a number as string (and back) and values of
 * the wrong type.
 */
import assert from 'node:assert/strict';
import { guard } from '../../connector/parse-helpers.ts';
import type { ParseResult, ParserContext } from '../../connector/types.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
type Parser = (frame: string, ctx: ParserContext) => ParseResult;

export function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v` with the members of every object in reverse order. */
function reversed(v: Json): Json {
  if (Array.isArray(v)) return v.map(reversed);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .reverse()
      .map(([k, x]) => [k, reversed(x)]),
  );
}

/** Values a trade field is replaced with: the wrong types, and the number / string twin of its value. */
function replacements(v: Json): Json[] {
  const out: Json[] = [null, true, {}, [], [1], 'x', '', -1];
  if (typeof v === 'number') out.push(String(v));
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) out.push(Number(v));
  return out;
}

/** A character as a JSON escape: B -> \u0042. */
function jsonEscape(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Replacer for /":"([A-Za-z])/: the first letter of a string value escaped. */
function escaped(_match: string, ch: string): string {
  return `":"${jsonEscape(ch)}`;
}

/**
 * Frames derived from `line`. `tradesOf` finds the trade list in a parsed frame (undefined: not a trade frame, only
 * the structural variants are made); `'frame'` when the frame itself is the one trade (its own members are varied).
 */
export function frameVariants(line: string, tradesOf: ((msg: JsonObject) => Json[] | undefined) | 'frame'): string[] {
  const out = [line];
  for (let n = 1; n < 8; n++) out.push(line.slice(0, Math.floor((line.length * n) / 8)));
  out.push(line.slice(0, -1), `${line} `, `${line}}`);
  let msg: Json;
  try {
    msg = JSON.parse(line) as Json;
  } catch {
    return out;
  }
  if (!isObject(msg)) return out;
  out.push(
    JSON.stringify(msg),
    JSON.stringify(reversed(msg)),
    JSON.stringify(msg, null, 1),
    JSON.stringify(msg, null, '\t'),
    JSON.stringify(msg).replaceAll(',"', ', "').replaceAll('":', '" :'),
    JSON.stringify({ ...msg, extra: [1, { a: [null, 'b'] }] }),
    line.replace(/":"([A-Za-z])/, escaped),
    line.replace(/^\{"([A-Za-z])/, (_m, ch: string) => `{"${jsonEscape(ch)}`),
  );
  if (tradesOf === 'frame') {
    out.push(...tradeVariants(msg, JSON.stringify, JSON.stringify(msg)));
    return out;
  }
  const trades = tradesOf(msg);
  const first = trades?.[0];
  if (trades === undefined || !isObject(first)) return out;
  const withFirst = (t: Json): string => {
    trades[0] = t;
    const s = JSON.stringify(msg);
    trades[0] = first;
    return s;
  };
  out.push(...tradeVariants(first, withFirst, JSON.stringify(msg)));
  return out;
}

/**
 * Variants of a frame's first trade `first`, as frames: `withFirst(t)` is the frame with `t` in its place, `compact`
 * the frame as JSON.stringify gives it.
 */
function tradeVariants(first: JsonObject, withFirst: (t: Json) => string, compact: string): string[] {
  const out: string[] = [];
  const firstText = JSON.stringify(first);
  out.push(
    withFirst({ ...first, nested: { a: [1, 2] } }),
    withFirst(reversed(first)),
    compact.replace(firstText, firstText.replace(/":"([A-Za-z])/, escaped)),
  );
  for (const [key, value] of Object.entries(first)) {
    const { [key]: _dropped, ...rest } = first;
    out.push(withFirst(rest));
    for (const r of replacements(value)) out.push(withFirst({ ...first, [key]: r }));
    // the member repeated, first with another value (JSON.parse keeps the last one)
    out.push(compact.replace(firstText, `{"${key}":${JSON.stringify(replacements(value)[1] ?? null)},${firstText.slice(1)}`));
  }
  return out;
}

/**
 * Runs every frame (twice: the scan learns runs on the first read) through both paths, each with its own context
 * from `context()`, and checks that results and context state are the same.
 */
export function assertSamePaths(frames: readonly string[], fast: Parser, json: Parser, context: () => ParserContext): void {
  const a = context();
  const b = context();
  const fastGuarded = guard(fast);
  const jsonGuarded = guard(json);
  for (let round = 0; round < 2; round++) {
    for (const frame of frames) {
      const ra = fastGuarded(frame, a);
      const rb = jsonGuarded(frame, b);
      assert.deepStrictEqual(ra, rb, frame);
      assert.equal(JSON.stringify(ra), JSON.stringify(rb), frame);
      assert.deepStrictEqual([...a.indexPrices], [...b.indexPrices], frame);
    }
  }
  assert.deepStrictEqual([...a.nameCache], [...b.nameCache]);
}

/** How many times `run` calls JSON.parse. */
export function jsonParseCalls(run: () => void): number {
  const parse = JSON.parse;
  let calls = 0;
  JSON.parse = (text: string, reviver?: Parameters<typeof JSON.parse>[1]): unknown => {
    calls++;
    return parse(text, reviver);
  };
  try {
    run();
  } finally {
    JSON.parse = parse;
  }
  return calls;
}

/** A frame of many trades: read in one pass (no JSON.parse call), `count` events, and what the JSON.parse path gives. */
export function assertOnePassBurst(burst: string, count: number, fast: Parser, json: Parser, context: () => ParserContext): void {
  let events = 0;
  const ctx = context();
  const calls = jsonParseCalls(() => {
    const r = fast(burst, ctx);
    events = r.outcome === 'events' ? r.events.length : 0;
  });
  assert.equal(calls, 0, 'JSON.parse calls');
  assert.equal(events, count);
  assertSamePaths([burst], fast, json, context);
}
