import type { ChainQuoteRow } from '../chain-quotes.ts';

/**
 * A stored chain row for the consolidation tests: no book, no IVs, no greeks (sources `none`), OI 0, t 0.1 y,
 * forward 100,000, unless given; the instrument name is derived from venue, strike and type.
 */
export function quoteRow(p: Partial<ChainQuoteRow> & Pick<ChainQuoteRow, 'venue' | 'strike' | 'option_type' | 'expiry'>): ChainQuoteRow {
  return {
    instrument: `${p.venue}-${p.strike}-${p.option_type}`,
    t_years: 0.1,
    forward: 100_000,
    bid_price_usd: null,
    ask_price_usd: null,
    bid_size: null,
    ask_size: null,
    mark_price_usd: null,
    last_price_usd: null,
    mark_iv: null,
    bid_iv: null,
    ask_iv: null,
    delta: null,
    gamma: null,
    vega: null,
    theta: null,
    delta_source: 'none',
    gamma_source: 'none',
    vega_source: 'none',
    theta_source: 'none',
    open_interest: 0,
    volume_24h: null,
    ...p,
  };
}
