/**
 * JSON rows of the chain-family routes from the pure results (processors/analytics chain-quotes, venue-book,
 * oi-by-expiry): ISO expiries, days to expiry from the chain instant, USD notional at the tick's spot.
 */
import type { ChainQuoteRow, ConsolidatedQuote, QuoteGreekSource } from '#processors/analytics/chain-quotes.ts';
import type { ExpiryOi } from '#processors/analytics/oi-by-expiry.ts';
import type { VenueBookRow } from '#processors/analytics/venue-book.ts';
import type { z } from 'zod';
import type { chainContract, chainData, oiByExpiryData, venueBookData } from './chain-schemas.ts';

type ContractJson = z.infer<typeof chainContract>;
type VenueJson = NonNullable<ContractJson['exchange_breakdown']>[number];
type LadderJson = NonNullable<z.infer<typeof chainData>['ladder']>[number];
type VenueBookJson = z.infer<typeof venueBookData>['rows'][number];
type ExpiryOiJson = z.infer<typeof oiByExpiryData>['expiries'][number];

const DAY_MS = 86_400_000;
const iso = (ms: number): string => new Date(ms).toISOString();
export const dteOf = (expiry: number, t: number): number => (expiry - t) / DAY_MS;

const venueSource = (s: string): QuoteGreekSource => (s === 'venue' || s === 'computed' ? s : 'none');

function venueJson(r: ChainQuoteRow): VenueJson {
  return {
    venue: r.venue,
    instrument: r.instrument,
    forward: r.forward,
    bid_usd: r.bid_price_usd,
    bid_size: r.bid_price_usd === null ? null : r.bid_size,
    ask_usd: r.ask_price_usd,
    ask_size: r.ask_price_usd === null ? null : r.ask_size,
    mark_usd: r.mark_price_usd,
    last_usd: r.last_price_usd,
    mark_iv: r.mark_iv,
    bid_iv: r.bid_iv,
    ask_iv: r.ask_iv,
    open_interest: r.open_interest,
    volume_24h: r.volume_24h,
    trade_count: r.trade_count ?? null,
    notional_volume: r.notional_volume ?? null,
    delta: r.delta,
    gamma: r.gamma,
    vega: r.vega,
    theta: r.theta,
    greeks_source: {
      delta: venueSource(r.delta_source),
      gamma: venueSource(r.gamma_source),
      vega: venueSource(r.vega_source),
      theta: venueSource(r.theta_source),
    },
  };
}

export function contractJson(c: ConsolidatedQuote, t: number, spot: number, breakdown: boolean): ContractJson {
  return {
    expiry: iso(c.expiry),
    dte: dteOf(c.expiry, t),
    strike: c.strike,
    type: c.type,
    forward: c.forward,
    bid_usd: c.bid?.price_usd ?? null,
    bid_size: c.bid?.size ?? null,
    bid_venue: c.bid?.venue ?? null,
    bid_iv: c.bid?.iv ?? null,
    ask_usd: c.ask?.price_usd ?? null,
    ask_size: c.ask?.size ?? null,
    ask_venue: c.ask?.venue ?? null,
    ask_iv: c.ask?.iv ?? null,
    mark_usd: c.mark_usd,
    mark_iv: c.mark_iv,
    open_interest: c.open_interest,
    open_interest_usd: c.open_interest * spot,
    volume_24h: c.volume_24h,
    trade_count: c.trade_count,
    notional_volume: c.notional_volume,
    delta: c.delta,
    gamma: c.gamma,
    vega: c.vega,
    theta: c.theta,
    greeks_source: c.greeks_source,
    venues: c.venues.map((v) => v.venue),
    ...(breakdown ? { exchange_breakdown: c.venues.map(venueJson) } : {}),
  };
}

/** One line per (expiry, strike): the call and the put side by side (null when that side is not listed). */
export function ladderJson(contracts: readonly ConsolidatedQuote[], t: number, spot: number, breakdown: boolean): LadderJson[] {
  const lines: { expiry: number; strike: number; call: ConsolidatedQuote | null; put: ConsolidatedQuote | null }[] = [];
  for (const c of contracts) {
    const last = lines[lines.length - 1];
    const line =
      last !== undefined && last.expiry === c.expiry && last.strike === c.strike
        ? last
        : { expiry: c.expiry, strike: c.strike, call: null, put: null };
    if (line !== last) lines.push(line);
    line[c.type] = c;
  }
  return lines.map((l) => ({
    expiry: iso(l.expiry),
    dte: dteOf(l.expiry, t),
    strike: l.strike,
    call: l.call === null ? null : contractJson(l.call, t, spot, breakdown),
    put: l.put === null ? null : contractJson(l.put, t, spot, breakdown),
  }));
}

export function venueBookJson(r: VenueBookRow, t: number): VenueBookJson {
  const side = (s: VenueBookRow['best_bid']): VenueBookJson['best_bid'] =>
    s === null ? null : { venue: s.venue, price_usd: s.price_usd, size: s.size };
  return {
    expiry: iso(r.expiry),
    dte: dteOf(r.expiry, t),
    strike: r.strike,
    type: r.type,
    mark_usd: r.mark_usd,
    best_bid: side(r.best_bid),
    best_ask: side(r.best_ask),
    spread_usd: r.spread_usd,
    spread_bps: r.spread_bps,
    crossed: r.crossed,
    venues: [...r.venues],
  };
}

export function expiryOiJson(e: ExpiryOi, t: number, breakdown: boolean): ExpiryOiJson {
  const { expiry, exchanges, max_pain, ...figures } = e;
  return { expiry: iso(expiry), dte: dteOf(expiry, t), ...figures, max_pain, ...(breakdown ? { exchange_breakdown: [...exchanges] } : {}) };
}
