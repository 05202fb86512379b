/**
 * JSON written straight into bytes (UTF-8) for renderers that make hundreds of thousands of documents a second (the
 * tape replay): numbers, ISO instants and strings go into one growable buffer with no intermediate string per value,
 * so almost nothing is left for the garbage collector. What it writes equals the UTF-8 of what `JSON.stringify` and
 * `Date.prototype.toISOString` make for the same values (tested value by value against them). Pure.
 */
import { decimalExponent, POW10 } from './decimal.ts';

const MS_PER_DAY = 86_400_000;
/** 10000-01-01T00:00:00Z: from here (and before 1970) an instant takes toISOString's own text. */
const FOUR_DIGIT_YEARS_END = 253_402_300_800_000;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const MINUS = 0x2d;
const POINT = 0x2e;

/** JSON's text of a finite number, `null` for NaN and the infinities (as JSON.stringify writes them). */
const NULL_TEXT = 'null';

/** Length of the ISO text of an instant (24 for years 1970-9999). */
export const isoLength = (ms: number): number => (ms >= 0 && ms < FOUR_DIGIT_YEARS_END ? 24 : new Date(ms).toISOString().length);

/** The two digits of 0 <= n < 100 at buf[p], buf[p + 1]. */
function twoDigits(buf: Buffer, p: number, n: number): void {
  const tens = (n / 10) | 0;
  buf[p] = ZERO + tens;
  buf[p + 1] = ZERO + (n - 10 * tens);
}

/** Digits of a non-negative safe integer. */
export function digitCount(n: number): number {
  let len = 1;
  for (let p = 10; p <= n; p *= 10) len++;
  return len;
}

/** A buffer that JSON is written into, grown as needed; `pos` is where the next byte goes. */
export class JsonBytes {
  buf: Buffer;
  pos = 0;
  /** No byte >= 0x80 was written since the last `reset`. */
  allAscii = true;

  constructor(size = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Starts again at byte 0 (what was written before is overwritten by what comes next). */
  reset(): void {
    this.pos = 0;
    this.allAscii = true;
  }

  /** Room for `n` more bytes (a grown buffer is a new one: views of the old one keep their bytes). */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.pos + n, 2 * this.buf.length));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** Bytes as they are (a fragment already encoded). */
  raw(src: Uint8Array, start = 0, end = src.length): void {
    const n = end - start;
    this.ensure(n);
    const { buf } = this;
    let p = this.pos;
    if (n > 32) buf.set(src.subarray(start, end), p);
    else for (let i = start; i < end; i++) buf[p++] = src[i] as number;
    this.pos += n;
  }

  /** ASCII text written as is (constant fragments, a number's text); the caller guarantees it is ASCII. */
  text(s: string): void {
    const n = s.length;
    this.ensure(n);
    const { buf } = this;
    let p = this.pos;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Any text as UTF-8. */
  utf8(s: string): void {
    this.ensure(3 * s.length);
    const n = this.buf.write(s, this.pos, 'utf8');
    if (n !== s.length) this.allAscii = false;
    this.pos += n;
  }

  /** A non-negative safe integer's digits. */
  uint(n: number): void {
    const len = digitCount(n);
    this.ensure(len);
    const { buf } = this;
    let v = n;
    let k = this.pos + len - 1;
    for (; v >= 2 ** 31; k--) {
      const q = Math.floor(v / 10);
      buf[k] = ZERO + (v - 10 * q);
      v = q;
    }
    // The rest in int32 arithmetic.
    for (; k >= this.pos; k--) {
      const q = (v / 10) | 0;
      buf[k] = ZERO + (v - 10 * q);
      v = q;
    }
    this.pos += len;
  }

  /** A number as JSON.stringify writes it (NaN and the infinities as `null`, -0 as `0`). */
  number(x: number): void {
    if (Number.isSafeInteger(x)) {
      if (x < 0) {
        this.ensure(1);
        this.buf[this.pos++] = MINUS;
        this.uint(-x);
      } else this.uint(x);
      return;
    }
    const a = x < 0 ? -x : x;
    if (a >= 1e-6 && a < 1e15 && this.shortDecimal(x < 0, a)) return;
    this.text(Number.isFinite(x) ? String(x) : NULL_TEXT);
  }

  /**
   * A non-integer 1e-6 <= a < 1e15 (negated when `negative`) written from its decimal digits when it is the double of
   * a decimal of at most 15 significant digits, as every price, size and USD figure ingest stores is (its `clean`):
   * that decimal is the text String(x) makes (platform/decimal.ts says why), written without the string. False (and
   * nothing written) for any other double.
   */
  private shortDecimal(negative: boolean, a: number): boolean {
    let f = 14 - decimalExponent(a);
    const scale = POW10[f] ?? 0;
    const m = Math.round(a * scale);
    if (!(m <= 1e15 && m / scale === a)) return false;
    // a = int + frac / 10^f. m / 10^f rounds to a, which is no integer, so the exact quotient lies strictly between
    // floor(a) and floor(a) + 1; int * scale is exact (int > 0 only for a >= 1, where scale <= 10^14). frac > 0.
    const int = Math.floor(a);
    let frac = m - int * scale;
    for (let k = 8; k >= 1; k >>= 1) {
      const p = POW10[k] ?? 1;
      if (frac % p === 0) {
        frac /= p;
        f -= k;
      }
    }
    // frac's last digit is not 0 now (the halvings strip up to 15 zeros; frac < 10^15).
    this.ensure(1);
    if (negative) this.buf[this.pos++] = MINUS;
    this.uint(int);
    const zeros = f - digitCount(frac);
    this.ensure(1 + zeros);
    const { buf } = this;
    buf[this.pos++] = POINT;
    for (let z = 0; z < zeros; z++) buf[this.pos++] = ZERO;
    this.uint(frac);
    return true;
  }

  /** A number or null, as JSON.stringify writes it. */
  nullableNumber(x: number | null): void {
    if (x === null) this.text(NULL_TEXT);
    else this.number(x);
  }

  /** A JSON string of `s` (quoted, escaped as JSON.stringify escapes). */
  jsonText(s: string): void {
    const n = s.length;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c === QUOTE || c === BACKSLASH || c > 0x7f) {
        this.utf8(JSON.stringify(s));
        return;
      }
    }
    this.ensure(n + 2);
    const { buf } = this;
    let p = this.pos;
    buf[p++] = QUOTE;
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i);
    buf[p++] = QUOTE;
    this.pos = p;
  }

  /**
   * A JSON string of the UTF-8 text in src[start, end): its bytes copied when they need no escape (printable ASCII
   * without quote or backslash), else the text decoded and escaped as JSON.stringify does (ill-formed UTF-8 then
   * reads as U+FFFD, as the same bytes decoded to a string would).
   */
  jsonUtf8(src: Buffer, start: number, end: number): void {
    for (let i = start; i < end; i++) {
      const b = src[i] as number;
      if (b < 0x20 || b === QUOTE || b === BACKSLASH || b > 0x7f) {
        this.utf8(JSON.stringify(src.toString('utf8', start, end)));
        return;
      }
    }
    this.ensure(end - start + 2);
    this.buf[this.pos++] = QUOTE;
    this.raw(src, start, end);
    this.buf[this.pos++] = QUOTE;
  }

  /**
   * The ISO-8601 text of an instant (ms UTC), as Date.prototype.toISOString writes it. Years 1970-9999 are computed
   * (the civil date of a day number: H. Hinnant's days_from_civil inverse, in int32 arithmetic), others take
   * toISOString's own text.
   */
  iso(ms: number): void {
    const t = Math.trunc(ms);
    if (!(t >= 0 && t < FOUR_DIGIT_YEARS_END)) {
      this.text(new Date(t).toISOString());
      return;
    }
    const day = Math.floor(t / MS_PER_DAY);
    const inDay = t - day * MS_PER_DAY; // < 2^31
    // The civil date of `day`, in eras of 400 years (146,097 days) counted from 0000-03-01.
    const z = day + 719_468;
    const era = (z / 146_097) | 0;
    const doe = z - era * 146_097;
    const yoe = ((doe - ((doe / 1460) | 0) + ((doe / 36_524) | 0) - ((doe / 146_096) | 0)) / 365) | 0;
    const doy = doe - (365 * yoe + ((yoe / 4) | 0) - ((yoe / 100) | 0));
    const mp = ((5 * doy + 2) / 153) | 0;
    const dayOfMonth = doy - (((153 * mp + 2) / 5) | 0) + 1;
    const month = mp < 10 ? mp + 3 : mp - 9;
    const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    const h = (inDay / 3_600_000) | 0;
    let rest = inDay - h * 3_600_000;
    const m = (rest / 60_000) | 0;
    rest -= m * 60_000;
    const sec = (rest / 1000) | 0;
    const milli = rest - sec * 1000;
    this.ensure(24);
    const { buf } = this;
    const p = this.pos;
    const century = (year / 100) | 0;
    twoDigits(buf, p, century);
    twoDigits(buf, p + 2, year - 100 * century);
    buf[p + 4] = 0x2d;
    twoDigits(buf, p + 5, month);
    buf[p + 7] = 0x2d;
    twoDigits(buf, p + 8, dayOfMonth);
    buf[p + 10] = 0x54;
    twoDigits(buf, p + 11, h);
    buf[p + 13] = 0x3a;
    twoDigits(buf, p + 14, m);
    buf[p + 16] = 0x3a;
    twoDigits(buf, p + 17, sec);
    buf[p + 19] = POINT;
    const tens = (milli / 10) | 0;
    buf[p + 20] = ZERO + ((milli / 100) | 0);
    buf[p + 21] = ZERO + (tens % 10);
    buf[p + 22] = ZERO + (milli - 10 * tens);
    buf[p + 23] = 0x5a;
    this.pos = p + 24;
  }
}
