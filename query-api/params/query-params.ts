/**
 * Parsing of query parameters shared by the route families (pure): CSV lists, ISO instants, expiry dates, the venue filter, symbol
 * lists.
 */
import { SYMBOLS, VENUES } from '#schemas/events.ts';
import type { MarketSymbol, Venue } from '#schemas/events.ts';

/** Comma-separated list: trimmed, empty items dropped, optionally lower-cased. */
export function parseCsv(s: string, lower = true): string[] {
  return s
    .split(',')
    .map((t) => (lower ? t.trim().toLowerCase() : t.trim()))
    .filter((t) => t !== '');
}

/** Answers of a pure function of a query value, kept for the few distinct values requests use. */
function memoized<R>(fn: (s: string) => R, max = 256): (s: string) => R {
  let seen = new Map<string, R>();
  return (s) => {
    const hit = seen.get(s);
    if (hit !== undefined) return hit;
    const r = fn(s);
    if (seen.size >= max) seen = new Map();
    seen.set(s, r);
    return r;
  };
}

const includeSets = new WeakMap<readonly string[], (s: string) => readonly string[]>();

/** Distinct include names of a validated include CSV, in the canonical order of `allowed` (shared, read-only). */
export function includeSet<T extends string>(s: string | undefined, allowed: readonly T[]): readonly T[] {
  if (s === undefined) return [];
  let of = includeSets.get(allowed);
  if (of === undefined) {
    of = memoized((csv) => {
      const wanted = new Set(parseCsv(csv));
      return allowed.filter((a) => wanted.has(a));
    });
    includeSets.set(allowed, of);
  }
  return of(s) as readonly T[];
}

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)$/;

function validDate(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/** ISO-8601 instant with a time zone (Z or ±hh:mm), calendar-valid, years 1970-9999. */
export function isIsoInstant(s: string): boolean {
  const m = ISO_INSTANT.exec(s);
  if (m === null) return false;
  const y = Number(m[1]);
  return y >= 1970 && validDate(y, Number(m[2]), Number(m[3])) && Number.isFinite(Date.parse(s));
}

/** Epoch ms of a validated instant (sub-millisecond digits truncated). */
export function instantMs(s: string): number {
  return Date.parse(s);
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** UTC day (ms of 00:00) of an expiry given as a Deribit token (27DEC24, 3JAN25) or an ISO date; null if invalid. */
export function parseExpiry(s: string): number | null {
  const t = s.trim().toUpperCase();
  let y: number;
  let mo: number;
  let d: number;
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  const tok = /^(\d{1,2})([A-Z]{3})(\d{2})$/.exec(t);
  if (iso !== null) {
    [y, mo, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  } else if (tok !== null) {
    [d, mo, y] = [Number(tok[1]), MONTHS.indexOf(tok[2] ?? '') + 1, 2000 + Number(tok[3])];
  } else {
    return null;
  }
  return y >= 1970 && validDate(y, mo, d) ? Date.UTC(y, mo - 1, d) : null;
}

export interface VenueFilter {
  /** Venues passed to the re-aggregation; undefined = every venue. */
  readonly venues: readonly Venue[] | undefined;
  /** meta.exchanges_filtered: the venues applied (every venue when no name is known); undefined without the parameter. */
  readonly applied: readonly Venue[] | undefined;
  /** Cache key of the selection and of `applied` (no parameter and an all-invalid one differ in meta). */
  readonly key: string;
}

const NO_FILTER: VenueFilter = { venues: undefined, applied: undefined, key: '*' };

const namedVenues = memoized((exchanges: string): VenueFilter => {
  const named = new Set(parseCsv(exchanges));
  const known = VENUES.filter((v) => named.has(v));
  if (known.length === 0) return { venues: undefined, applied: VENUES, key: '*all' };
  return { venues: known, applied: known, key: known.join(',') };
});

/** The `exchanges` rules: unknown names ignored; no known name → every venue (all applied). Shared, read-only. */
export function venueFilter(exchanges: string | undefined): VenueFilter {
  return exchanges === undefined ? NO_FILTER : namedVenues(exchanges);
}

/** Split a symbols CSV into valid (deduplicated, request order) and invalid names. */
export function splitSymbols(csv: string): { readonly valid: MarketSymbol[]; readonly invalid: string[] } {
  const valid: MarketSymbol[] = [];
  const invalid: string[] = [];
  for (const name of parseCsv(csv, false)) {
    if ((SYMBOLS as readonly string[]).includes(name)) {
      if (!valid.includes(name as MarketSymbol)) valid.push(name as MarketSymbol);
    } else if (!invalid.includes(name)) {
      invalid.push(name);
    }
  }
  return { valid, invalid };
}
