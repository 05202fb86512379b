/**
 * The `data` objects of /v2/options/chain, /v2/options/venue-book and /v2/options/oi/by-expiry from the stored chain
 * rows of one instant: shared by the routes and by `gex chain --rows FILE` (the same bytes from a file).
 */
import { consolidateChain, selectContracts } from '#processors/analytics/chain-quotes.ts';
import type { ChainFilter, ChainQuoteRow } from '#processors/analytics/chain-quotes.ts';
import { oiByExpiry } from '#processors/analytics/oi-by-expiry.ts';
import { venueBook } from '#processors/analytics/venue-book.ts';
import type { VenueBookSort } from '#processors/analytics/venue-book.ts';
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { notFound, validationError } from '../envelope/errors.ts';
import { parseCsv, parseExpiry } from '../params/query-params.ts';
import { contractJson, expiryOiJson, ladderJson, venueBookJson } from './chain-render.ts';
import type { chainData, oiByExpiryData, venueBookData } from './chain-schemas.ts';

const DAY_MS = 86_400_000;
const isoDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Expiry days of `expiry` / `expiries` (422 for both at once, 404 for one not listed in the stored chain). */
export function expiryDays(
  q: { readonly symbol: string; readonly expiry?: string | undefined; readonly expiries?: string | undefined },
  rows: readonly { readonly expiry: number }[],
): number[] {
  if (q.expiry !== undefined && q.expiries !== undefined) {
    throw validationError([
      { name: 'expiries', location: 'query', message: 'use either expiry or expiries, not both', received: q.expiries },
    ]);
  }
  const tokens = q.expiries !== undefined ? parseCsv(q.expiries, false) : q.expiry !== undefined ? [q.expiry] : [];
  const days = [...new Set(tokens.map((s) => parseExpiry(s) as number))].sort((a, b) => a - b);
  const missing = days.filter((d) => !rows.some((r) => r.expiry >= d && r.expiry < d + DAY_MS));
  if (missing.length > 0) throw notFound(`expiry ${missing.map(isoDay).join(', ')} is not listed for ${q.symbol}`);
  return days;
}

const optionalNumber = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s));

export function chainFilter(
  q: {
    type?: 'call' | 'put' | undefined;
    strike_min?: string | undefined;
    strike_max?: string | undefined;
    moneyness?: string | undefined;
  },
  days: number[],
): ChainFilter {
  const f: { -readonly [K in keyof ChainFilter]: ChainFilter[K] } = { expiryDays: days };
  if (q.type !== undefined) f.type = q.type;
  const min = optionalNumber(q.strike_min);
  const max = optionalNumber(q.strike_max);
  const m = optionalNumber(q.moneyness);
  if (min !== undefined) f.strikeMin = min;
  if (max !== undefined) f.strikeMax = max;
  if (m !== undefined) f.moneyness = m;
  return f;
}

/** meta.extra.filter_hash: SHA-256 (first 16 hex) of the normalized filter set; equivalent spellings hash alike. */
export function filterHash(
  symbol: string,
  exchanges: readonly string[] | undefined,
  f: ChainFilter,
  layout: string,
  include: readonly string[],
): string {
  const normalized = {
    symbol,
    exchanges: exchanges === undefined ? null : [...exchanges].sort(),
    expiries: (f.expiryDays ?? []).map(isoDay),
    type: f.type ?? null,
    strike_min: f.strikeMin ?? null,
    strike_max: f.strikeMax ?? null,
    moneyness: f.moneyness ?? null,
    layout,
    include: [...include].sort(),
  };
  return createHash('sha256').update(JSON.stringify(normalized)).digest('hex').slice(0, 16);
}

export interface ChainAt {
  readonly symbol: string;
  /** The chain instant, ms UTC. */
  readonly t: number;
  readonly spot: number;
  readonly rows: readonly ChainQuoteRow[];
}

export function chainView(c: ChainAt, f: ChainFilter, layout: 'rows' | 'ladder', breakdown: boolean): z.infer<typeof chainData> {
  const contracts = consolidateChain(c.rows, f);
  const expiries = [...new Set(contracts.map((x) => x.expiry))].map((e) => new Date(e).toISOString());
  const base = { symbol: c.symbol, spot: c.spot, layout, expiries };
  return layout === 'ladder'
    ? { ...base, ladder: ladderJson(contracts, c.t, c.spot, breakdown) }
    : { ...base, rows: contracts.map((x) => contractJson(x, c.t, c.spot, breakdown)) };
}

export function venueBookView(
  c: ChainAt,
  f: ChainFilter,
  sort: VenueBookSort,
  minVenues: number,
  limit: number,
): z.infer<typeof venueBookData> {
  const rows = venueBook(
    selectContracts(c.rows, f).filter((g) => g.length >= minVenues),
    sort,
  );
  return { symbol: c.symbol, spot: c.spot, sort, total: rows.length, rows: rows.slice(0, limit).map((r) => venueBookJson(r, c.t)) };
}

export function oiByExpiryView(c: ChainAt, breakdown: boolean): z.infer<typeof oiByExpiryData> {
  const r = oiByExpiry(c.rows, c.spot);
  return { symbol: c.symbol, spot: c.spot, expiries: r.expiries.map((e) => expiryOiJson(e, c.t, breakdown)), totals: r.totals };
}
