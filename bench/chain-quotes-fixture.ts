/**
 * A synthetic chain as the snapshot processor holds it at a tick: each contract of a syntheticChain with a ticker
 * carrying a book (bid/ask ±2 % around the Black-76 price, sizes 1-10 coins), a last price, a 24 h volume and, on
 * deribit and bybit, published greeks (Black-76 values ×1.05, so the units guard keeps them). For the benchmarks.
 */
import { greeks, price, pricingT } from '#processors/analytics/black76.ts';
import { prng } from '#processors/analytics/testing/synthetic-chain.ts';
import type { ChainSnapshot } from '#processors/analytics/types.ts';
import type { NamedInstrument } from '#processors/snapshots/chain.ts';
import { chainRows } from '#processors/snapshots/option-chain.ts';
import type { OptionChainRow } from '#processors/snapshots/option-chain.ts';

export function quotedInstruments(chain: ChainSnapshot, seed = 11): NamedInstrument[] {
  const rand = prng(seed);
  return chain.instruments.map((i, n) => {
    const t = pricingT(i.expiry, chain.now);
    const sigma = i.markIv ?? 0.5;
    const px = t === null ? null : price(i.type, i.forward, i.strike, sigma, t);
    const g = t === null ? null : greeks(i.type, i.forward, i.strike, sigma, t);
    const published = g !== null && (i.venue === 'deribit' || i.venue === 'bybit');
    const instrument = `${i.venue.toUpperCase()}-${n}`;
    return {
      ...i,
      instrument,
      ticker: {
        venue: i.venue,
        instrument,
        ts: chain.now - 2_000,
        strike: i.strike,
        expiry: i.expiry,
        type: i.type,
        markIv: i.markIv,
        openInterest: i.openInterest,
        underlyingPrice: i.forward,
        indexPrice: chain.spot,
        quote: {
          markPrice: px,
          bidIv: sigma * 0.98,
          askIv: sigma * 1.02,
          delta: published ? g.delta * 1.05 : null,
          gamma: published ? g.gamma * 1.05 : null,
          vega: published ? g.vega * 1.05 : null,
          theta: published ? g.theta * 1.05 : null,
          bidPriceUsd: px === null || px < 1 ? null : px * 0.98,
          askPriceUsd: px === null || px < 1 ? null : px * 1.02,
          lastPriceUsd: px,
          bidSize: 1 + Math.floor(rand() * 10),
          askSize: 1 + Math.floor(rand() * 10),
          volume24h: Math.floor(rand() * 50),
        },
      },
    };
  });
}

/** The consolidated chain rows of a synthetic chain at its tick. */
export function quotedChainRows(chain: ChainSnapshot, seed = 11): OptionChainRow[] {
  return chainRows(chain, quotedInstruments(chain, seed));
}
