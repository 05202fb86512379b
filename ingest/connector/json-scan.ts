/**
 * A one-pass reader of JSON text for hot frames, without JSON.parse: a cursor that reads the members of objects
 * (strings, numbers, true, false and null as JSON.parse gives them; objects and arrays the caller descends into) and
 * the elements of arrays, and validates everything it skips. It reads no string escapes (text holding a backslash is
 * refused up front) and nests at most MAX_DEPTH deep. Any input it does not handle, valid JSON or not, sets `failed`;
 * a caller then drops what it read and takes the JSON.parse path, so its behaviour stays that of JSON.parse for every
 * input.
 *
 * Members are read in runs: from an object's `{` (or from after a member the caller descended into) to the next
 * member the caller descends into, or to the closing `}`. A KeySet learns the runs it meets and compiles each into one
 * sticky regular expression that matches, and so validates, the whole run with the values read as captures: one
 * native pass instead of a walk char by char in script. An opening run that stops at an object is also joined with
 * the first run of that object (one regex for a frame's head). Runs not learned (or text with whitespace between
 * tokens) are read member by member.
 */
import { plainDecimalAt } from './parse-helpers.ts';

/** Deepest nesting a skipped value may have; deeper values fail the scan (bounded recursion). */
const MAX_DEPTH = 32;
/**
 * Longest text read, 4 MiB (longer text is left to JSON.parse). The regexes match without backtracking across members,
 * so the work is linear in the text; the bound only caps one call. A burst of trades in one frame (a busy 100 ms on
 * Deribit, a run of fills on OKX) reaches hundreds of KiB, exactly when the one-pass read pays the most.
 */
const MAX_LENGTH = 1 << 22;
/** Runs a KeySet keeps, runs it compiles at most (a bound for text whose runs never repeat), members per run. */
const MAX_RUNS = 8;
const MAX_COMPILES = 32;
const MAX_MEMBERS = 64;

/** values[k] of a member whose object / array value the caller reads (a later scalar member of that name replaces it). */
export const NESTED: unique symbol = Symbol('nested');

/** `member` results besides a key index. */
const UNKNOWN = -1;
const END = -2;

/** Kinds of scalar values: a run matches the kinds of the object it was learned from (others make another run). */
const STR = 0;
const NUM = 1;
const LIT = 2;

/** Regular-expression sources of JSON tokens: string content without escapes, number; scalars by kind, captured or not. */
const CONTENT = '[^"\\\\\\u0000-\\u001f]*';
const NUMBER = '-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?';
const SKIP: readonly string[] = [`"${CONTENT}"`, NUMBER, '(?:true|false|null)'];
const CAPTURE: readonly string[] = [`"(${CONTENT})"`, `(${NUMBER})`, '(true|false|null)'];

/** A learned run: its regex, where it ends and the key index and kind of each captured value. */
interface Run {
  readonly re: RegExp;
  /** The regex source without the lookahead of a run that stops at a member (what a joined run continues). */
  readonly src: string;
  /** Key index of the member whose object / array value it stops at, or END when it ends with the object. */
  readonly stop: number;
  readonly keys: readonly number[];
  readonly kinds: readonly number[];
  /** For an opening run: the key indexes it does not set (cleared, as the object holds no such member up to its stop). */
  readonly unset: readonly number[];
  /** Whether it captures any value (a run that captures none is tested, not executed: no match array). */
  readonly captures: boolean;
  /** A joined run: the run it extends, and the opening run of the object it stops at (captures after this run's). */
  readonly then?: { readonly from: Run; readonly keys: KeySet; readonly run: Run };
}

/** A run as read member by member: what `learn` compiles. */
interface RunShape {
  readonly opens: boolean;
  readonly names: string[];
  readonly keys: number[];
  readonly kinds: number[];
  /** Unknown members holding objects / arrays were skipped: no regex for such a run. */
  nested: boolean;
}

/** The member names a reader looks for, and the runs of their objects it has learned. */
export class KeySet {
  readonly names: readonly string[];
  /**
   * values[k] = the value of member names[k] of the object being read, as JSON.parse gives it: undefined when absent,
   * NESTED for an object / array the caller reads, the last one when repeated.
   */
  readonly values: unknown[];
  private readonly hashes: readonly number[];
  /** Learned runs that start at an object's `{`, and runs that start after a member value the caller read. */
  readonly opening: Run[] = [];
  readonly resuming: Run[] = [];
  /** The run of each list that matched last (a run moves to the front on its second match in a row). */
  lastOpening: Run | null = null;
  lastResuming: Run | null = null;
  private compiles = 0;

  constructor(names: readonly string[]) {
    this.names = names;
    this.values = names.map(() => undefined);
    this.hashes = names.map((n) => nameHash(n, 0, n.length));
  }

  /** Index of the name text[start, end) with hash `h`, or UNKNOWN. */
  find(text: string, start: number, end: number, h: number): number {
    const hashes = this.hashes;
    for (let k = 0; k < hashes.length; k++) {
      if (hashes[k] === h && sameChars(text, start, end, this.names[k] ?? '')) return k;
    }
    return UNKNOWN;
  }

  /**
   * Compiles the run text[start, end) read member by member, stopping at member `stop` (END: at the closing brace),
   * and keeps it when it matches that very text (it does not when the text holds whitespace between tokens).
   */
  learn(text: string, start: number, end: number, shape: RunShape, stop: number, stopName: string): void {
    const runs = shape.opens ? this.opening : this.resuming;
    if (shape.nested || shape.names.length > MAX_MEMBERS || runs.length >= MAX_RUNS || this.compiles >= MAX_COMPILES) return;
    let src = shape.opens ? '\\{' : '';
    let comma = !shape.opens;
    shape.names.forEach((name, j) => {
      const k = shape.keys[j] ?? UNKNOWN;
      src += `${comma ? ',' : ''}"${literal(name)}":${(k === UNKNOWN ? SKIP : CAPTURE)[shape.kinds[j] ?? STR] ?? ''}`;
      comma = true;
    });
    src += stop === END ? '\\}' : `${comma ? ',' : ''}"${literal(stopName)}":`;
    const re = this.compile(src, stop, text, start, end);
    if (re === null) return;
    const read = shape.keys.flatMap((k, j) => (k === UNKNOWN ? [] : [j]));
    const keys = read.map((j) => shape.keys[j] ?? 0);
    const unset = shape.opens ? this.names.map((_n, k) => k).filter((k) => !keys.includes(k) && k !== stop) : [];
    runs.push({ re, src, stop, keys, kinds: read.map((j) => shape.kinds[j] ?? STR), unset, captures: keys.length > 0 });
  }

  /**
   * Joins opening run `first` of this KeySet, which stopped at an object member, with opening run `then` of that
   * object (KeySet `keys`), both just matched at text[start, end): one regex for both when it matches that text.
   */
  join(first: Run, keys: KeySet, then: Run, text: string, start: number, end: number): void {
    const runs = this.opening;
    // The joined run goes first and counts as the run matched last (not `first`, which matched instead of it): so
    // `first` is not moved ahead of the joined runs by matching twice in a row where two layouts alternate.
    const joined = runs.findIndex((r) => r.then?.from === first && r.then.run === then);
    if (joined !== -1) {
      runs.unshift(...runs.splice(joined, 1)); // known: tried first again
      this.lastOpening = runs[0] ?? null;
      return;
    }
    if (then.then !== undefined || runs.length >= MAX_RUNS || this.compiles >= MAX_COMPILES) return;
    const re = this.compile(first.src + then.src, then.stop, text, start, end);
    if (re === null) return;
    const run: Run = { ...first, re, src: '', captures: true, then: { from: first, keys, run: then } };
    runs.unshift(run);
    this.lastOpening = run;
  }

  /** The sticky regex of a run's source (with the lookahead of a run stopping at a member) if it matches text[start, end). */
  private compile(src: string, stop: number, text: string, start: number, end: number): RegExp | null {
    this.compiles++;
    try {
      const re = new RegExp(stop === END ? src : `${src}(?=[[{])`, 'y'); // compiled on its first test: an error means no run
      re.lastIndex = start;
      return re.test(text) && re.lastIndex === end ? re : null;
    } catch {
      return null;
    }
  }
}

/** Discriminating values a KeySetsBy keeps a KeySet of its own for; later values share one. */
const MAX_KEY_SETS = 16;

/**
 * KeySets of one list of member names, one per value of a member read before them (a channel, a topic), so that the
 * objects of each channel are matched by the runs learned from that channel first: where channels whose objects have
 * different layouts interleave, one shared KeySet would try the other channel's run first about every other time.
 * Which KeySet reads an object changes nothing but speed.
 */
export class KeySetsBy {
  private readonly names: readonly string[];
  private readonly shared: KeySet;
  /** values[i] has keySets[i] (a short list compared in order: cheaper than hashing a fresh string per frame). */
  private readonly values: string[] = [];
  private readonly keySets: KeySet[] = [];

  constructor(names: readonly string[]) {
    this.names = names;
    this.shared = new KeySet(names);
  }

  /** The KeySet of `value` (a string read before the objects; anything else, and values beyond MAX_KEY_SETS: the shared one). */
  get(value: unknown): KeySet {
    if (typeof value !== 'string') return this.shared;
    const values = this.values;
    for (let i = 0; i < values.length; i++) if (values[i] === value) return this.keySets[i] ?? this.shared;
    if (values.length >= MAX_KEY_SETS) return this.shared;
    const keys = new KeySet(this.names);
    values.push(value);
    this.keySets.push(keys);
    return keys;
  }
}

/** The KeySet of a reader that only skips: every member is unknown. */
const NO_KEYS = new KeySet([]);

/** A member name as a regex source: letters, digits and '_' as they are, every other code unit as \uXXXX. */
function literal(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function nameHash(s: string, start: number, end: number): number {
  let h = 0;
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

function sameChars(text: string, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (text.charCodeAt(start + i) !== name.charCodeAt(i)) return false;
  return true;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** The value of a JSON number token: `Number()` of it. */
function numberValue(t: string, start: number, end: number): number {
  const n = plainDecimalAt(t, start, end);
  return n === n ? n : Number(t.slice(start, end)); // NaN: more than 15 digits or an exponent
}

/** The match of a run that captures nothing. */
const NO_CAPTURES: ArrayLike<string | undefined> = [];

/** Sets the values of the members `run` captures (m[offset + 1] on) and clears the ones it has not. */
function fill(out: unknown[], run: Run, m: ArrayLike<string | undefined>, offset: number): void {
  const unset = run.unset;
  for (let j = 0; j < unset.length; j++) out[unset[j] ?? 0] = undefined;
  const keys = run.keys;
  const kinds = run.kinds;
  for (let j = 0; j < keys.length; j++) {
    const t = m[offset + j + 1] ?? '';
    const kind = kinds[j];
    out[keys[j] ?? 0] = kind === STR ? t : kind === NUM ? numberValue(t, 0, t.length) : literalValue(t);
  }
}

/** The value of a true, false or null token. */
function literalValue(t: string): boolean | null {
  const c = t.charCodeAt(0);
  return c === 116 ? true : c === 102 ? false : null;
}

/**
 * A cursor over one JSON text. Usage: `begin(text)`; `readObject(keys)` on an object, then, each time it returns a
 * member the caller descends into (`readObject`, `values`, `objects`), `readRest(keys)` after that value; finally
 * `end()`. The values read are in `keys.values`. After the first failure every call returns -1 or null and `end()`
 * is false.
 */
export class JsonScan {
  private text = '';
  private pos = 0;
  private len = 0;
  private depth = 0;
  /** Whether the next member / element read is the first of the object / array just opened. */
  private first = false;
  /** The name of the member `member` read last: text[nameStart, nameEnd). */
  private nameStart = 0;
  private nameEnd = 0;
  /**
   * A joined run read the object the caller is to read next (with `readObject(pending)`, which then returns
   * `pendingStop`); any other read fails the scan.
   */
  private pending: KeySet | null = null;
  private pendingStop = -1;
  /** The opening run matched last when it stopped at a member, its KeySet and text[lastStart, lastEnd): what `join` joins. */
  private lastRun: Run | null = null;
  private lastKeys: KeySet | null = null;
  private lastStart = 0;
  private lastEnd = 0;
  /** The run `run` matched last. */
  private matched: Run | null = null;
  /** Set by the first input the scan does not handle. */
  failed = false;

  /** Starts on `text`; false (and failed) when it holds a backslash (escapes are not read) or is over MAX_LENGTH. */
  begin(text: string): boolean {
    this.text = text;
    this.pos = 0;
    this.len = text.length;
    this.depth = 0;
    this.first = false;
    this.pending = null;
    this.lastRun = null;
    this.failed = text.length > MAX_LENGTH || text.indexOf('\\') !== -1;
    return !this.failed;
  }

  /** True when the whole text was one value followed by whitespace only, and nothing failed. */
  end(): boolean {
    this.ws();
    return !this.failed && this.pending === null && this.pos === this.len;
  }

  /**
   * Reads the object at the cursor up to its first member whose name is in `keys` and whose value is an object or
   * array: returns that key index, the cursor on the value. -1 when the object ended first (or the scan failed).
   */
  readObject(keys: KeySet): number {
    if (this.pending !== null) {
      if (this.pending !== keys) return this.fail();
      this.pending = null;
      return this.pendingStop;
    }
    // the object a run of its parent stopped at, right there: the two runs can be learned as one
    const parent = this.lastRun !== null && this.lastEnd === this.pos ? this.lastRun : null;
    const parentKeys = this.lastKeys;
    const parentStart = this.lastStart;
    this.lastRun = null;
    if (this.ws() !== 123 || this.depth >= MAX_DEPTH) return this.fail();
    this.depth++;
    const k = this.run(keys, keys.opening);
    if (k === undefined) return this.runOneByOne(keys, true);
    if (parent !== null && parentKeys !== null && this.matched !== null) {
      parentKeys.join(parent, keys, this.matched, this.text, parentStart, this.pos);
    }
    return k;
  }

  /** `readObject` continued after the value of the member it returned, which the caller has read. */
  readRest(keys: KeySet): number {
    if (this.pending !== null) return this.fail();
    this.lastRun = null;
    if (this.ws() === 125) {
      this.close(); // the common end of an object after its last member was an object / array
      return -1;
    }
    if (this.failed) return -1;
    return this.run(keys, keys.resuming) ?? this.runOneByOne(keys, false);
  }

  /** Reads the object at the cursor, which must hold only scalars under the names in `keys` (see `readObject`). */
  values(keys: KeySet): boolean {
    if (this.readObject(keys) === -1) return !this.failed;
    this.fail();
    return false;
  }

  /**
   * Reads the array at the cursor, whose elements must be objects of scalars (see `values`): `make(keys.values)` of
   * each element, or null when the scan failed.
   */
  objects<T>(keys: KeySet, make: (values: readonly unknown[]) => T): T[] | null {
    this.lastRun = null;
    if (this.pending !== null) this.fail();
    if (!this.open(91)) return null;
    const out: T[] = [];
    while (this.item()) {
      if (!this.values(keys)) return null;
      out.push(make(keys.values));
    }
    return this.failed ? null : out;
  }

  /** Moves to the next element of the current array: true with the cursor on it, false after the closing bracket. */
  private item(): boolean {
    const c = this.ws();
    if (this.first) {
      this.first = false;
      if (c !== 93) return !this.failed;
    } else if (c === 44) {
      this.pos++;
      return true;
    } else if (c !== 93) {
      this.fail();
      return false;
    }
    this.close();
    return false;
  }

  /** A learned run matching at the cursor: reads it and returns its stop (-1 for END); undefined when none matches. */
  private run(keys: KeySet, runs: Run[]): number | undefined {
    const text = this.text;
    const start = this.pos;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r];
      if (run === undefined) break;
      const re = run.re;
      re.lastIndex = start;
      const m = run.captures ? re.exec(text) : re.test(text) ? NO_CAPTURES : null;
      if (m === null) continue;
      this.pos = re.lastIndex;
      this.matched = run;
      // A run that matches twice in a row is tried first from then on (the objects of one array tend to repeat a
      // layout); where two layouts alternate, the order stays, so only one of them is tried in vain.
      const opening = runs === keys.opening;
      if (r > 0 && (opening ? keys.lastOpening : keys.lastResuming) === run) {
        runs[r] = runs[0] ?? run;
        runs[0] = run;
      }
      if (opening) keys.lastOpening = run;
      else keys.lastResuming = run;
      fill(keys.values, run, m, 0);
      if (run.stop === END) {
        this.depth--;
        return -1;
      }
      keys.values[run.stop] = NESTED;
      const then = run.then;
      if (then === undefined) {
        if (runs === keys.opening) {
          this.lastRun = run;
          this.lastKeys = keys;
          this.lastStart = start;
          this.lastEnd = this.pos;
        }
        return run.stop;
      }
      // a joined run: the object at the stop member is read too, and handed out by the next readObject
      if (this.depth >= MAX_DEPTH) return this.fail();
      fill(then.keys.values, then.run, m, run.keys.length);
      this.pending = then.keys;
      this.pendingStop = then.run.stop === END ? -1 : then.run.stop;
      if (then.run.stop !== END) {
        then.keys.values[then.run.stop] = NESTED;
        this.depth++;
      }
      return run.stop;
    }
    return undefined;
  }

  /** A run member by member (the object's `{` already counted in depth when `opens`); learns it. */
  private runOneByOne(keys: KeySet, opens: boolean): number {
    const text = this.text;
    const start = this.pos;
    const out = keys.values;
    if (opens) {
      for (let k = 0; k < out.length; k++) out[k] = undefined;
      this.pos++;
      this.first = true;
    }
    const shape: RunShape = { opens, names: [], keys: [], kinds: [], nested: false };
    for (;;) {
      const k = this.member(keys);
      if (this.failed) return -1;
      if (k === END) {
        keys.learn(text, start, this.pos, shape, END, '');
        return -1;
      }
      const name = text.slice(this.nameStart, this.nameEnd);
      const c = this.ws();
      if (c === 123 || c === 91) {
        if (k !== UNKNOWN) {
          keys.learn(text, start, this.pos, shape, k, name);
          out[k] = NESTED;
          return k;
        }
        shape.nested = true;
        this.skip();
        continue;
      }
      shape.names.push(name);
      shape.keys.push(k);
      shape.kinds.push(c === 34 ? STR : c === 116 || c === 102 || c === 110 ? LIT : NUM);
      if (k === UNKNOWN) this.skipScalar();
      else out[k] = this.scalar();
    }
  }

  /** One member: its key index, UNKNOWN for a name not in `keys` (cursor on the value), END after the closing brace. */
  private member(keys: KeySet): number {
    const text = this.text;
    let c = this.ws();
    if (this.first) {
      this.first = false;
      if (c === 125) return this.close();
    } else if (c === 44) {
      this.pos++;
      c = this.ws();
    } else if (c === 125) {
      return this.close();
    } else {
      return this.fail();
    }
    if (c !== 34) return this.fail();
    const start = this.pos + 1;
    let i = start;
    let h = 0;
    for (c = text.charCodeAt(i); c !== 34; c = text.charCodeAt(++i)) {
      if (!(c >= 32)) return this.fail(); // a control character, or the end of the text (NaN)
      h = (Math.imul(h, 31) + c) | 0;
    }
    this.nameStart = start;
    this.nameEnd = i;
    this.pos = i + 1;
    if (this.ws() !== 58) return this.fail();
    this.pos++;
    return keys.find(text, start, i, h);
  }

  /** The string, number, true, false or null at the cursor as JSON.parse gives it; anything else fails the scan. */
  private scalar(): string | number | boolean | null | undefined {
    const c = this.ws();
    const start = this.pos;
    if (c === 34) {
      const end = this.stringEnd(start + 1);
      return end === -1 ? undefined : this.text.slice(start + 1, end);
    }
    if (c === 45 || isDigit(c)) return this.numberEnd() === -1 ? undefined : numberValue(this.text, start, this.pos);
    if (c === 116) return this.word('true') ? true : undefined;
    if (c === 102) return this.word('false') ? false : undefined;
    if (c === 110) return this.word('null') ? null : undefined;
    this.fail();
    return undefined;
  }

  /** Skips the value at the cursor, validating it. */
  private skip(): void {
    const c = this.ws();
    if (c === 123) {
      if (this.open(123)) for (let k = this.member(NO_KEYS); k !== END && !this.failed; k = this.member(NO_KEYS)) this.skip();
    } else if (c === 91) {
      if (this.open(91)) while (this.item()) this.skip();
    } else {
      this.skipScalar();
    }
  }

  /** Skips the string, number, true, false or null at the cursor; anything else fails the scan. */
  private skipScalar(): void {
    const c = this.ws();
    if (c === 34) this.stringEnd(this.pos + 1);
    else if (c === 45 || isDigit(c)) this.numberEnd();
    else if (c === 116) this.word('true');
    else if (c === 102) this.word('false');
    else if (c === 110) this.word('null');
    else this.fail();
  }

  private open(bracket: number): boolean {
    if (this.ws() !== bracket || this.depth >= MAX_DEPTH) {
      this.fail();
      return false;
    }
    this.pos++;
    this.depth++;
    this.first = true;
    return true;
  }

  /** Moves past a closing bracket. */
  private close(): typeof END {
    this.pos++;
    this.depth--;
    return END;
  }

  private fail(): -1 {
    this.failed = true;
    this.first = false;
    this.pos = this.len;
    return -1;
  }

  /** Skips whitespace; the char code at the cursor (NaN at the end). */
  private ws(): number {
    const text = this.text;
    let c = text.charCodeAt(this.pos);
    while (c === 32 || c === 10 || c === 13 || c === 9) c = text.charCodeAt(++this.pos);
    return c;
  }

  /** For the string whose content starts at `start`: the index of its closing quote (cursor moved past it), or -1. */
  private stringEnd(start: number): number {
    const text = this.text;
    let i = start;
    for (let c = text.charCodeAt(i); c !== 34; c = text.charCodeAt(++i)) {
      if (!(c >= 32)) return this.fail();
    }
    this.pos = i + 1;
    return i;
  }

  /** Moves past the JSON number at the cursor; -1 (and failed) when there is none. */
  private numberEnd(): number {
    const text = this.text;
    let i = this.pos;
    let c = text.charCodeAt(i);
    if (c === 45) c = text.charCodeAt(++i);
    if (c === 48) c = text.charCodeAt(++i);
    else if (c >= 49 && c <= 57) while (isDigit(c)) c = text.charCodeAt(++i);
    else return this.fail();
    if (c === 46) {
      c = text.charCodeAt(++i);
      if (!isDigit(c)) return this.fail();
      while (isDigit(c)) c = text.charCodeAt(++i);
    }
    if (c === 101 || c === 69) {
      c = text.charCodeAt(++i);
      if (c === 43 || c === 45) c = text.charCodeAt(++i);
      if (!isDigit(c)) return this.fail();
      while (isDigit(c)) c = text.charCodeAt(++i);
    }
    this.pos = i;
    return i;
  }

  private word(w: string): boolean {
    if (!this.text.startsWith(w, this.pos)) {
      this.fail();
      return false;
    }
    this.pos += w.length;
    return true;
  }
}
