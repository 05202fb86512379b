/** The `data` of /v2/options/iv/smile and /v2/options/iv/term-structure from chain rows (the routes and `gex smile`). */
import type { z } from 'zod';
import type { ChainQuoteRow } from '#processors/analytics/chain-quotes.ts';
import { smiles, termStructure } from '#processors/analytics/smile.ts';
import type { SmileCurve } from '#processors/analytics/smile.ts';
import { dteOf } from './chain-render.ts';
import type { smileData, termStructureData } from './iv-schemas.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const curveJson = (c: SmileCurve): Omit<SmileCurve, 'points'> & { points: SmileCurve['points'][number][] } => ({
  forward: c.forward,
  atm_iv: c.atm_iv,
  iv_25d_call: c.iv_25d_call,
  iv_25d_put: c.iv_25d_put,
  rr_25d: c.rr_25d,
  bf_25d: c.bf_25d,
  points: [...c.points],
});

export interface IvInput {
  readonly symbol: string;
  readonly t: number;
  readonly spot: number;
  readonly rows: readonly ChainQuoteRow[];
}

export function smileView(x: IvInput, perVenue: boolean): z.infer<typeof smileData> {
  return {
    symbol: x.symbol,
    spot: x.spot,
    expiries: smiles(x.rows, x.t, perVenue).map((s) => ({
      expiry: iso(s.expiry),
      dte: dteOf(s.expiry, x.t),
      ...curveJson(s),
      ...(s.venues !== undefined ? { venues: s.venues.map((v) => ({ venue: v.venue, ...curveJson(v) })) } : {}),
    })),
  };
}

export function termStructureView(x: IvInput): z.infer<typeof termStructureData> {
  const ts = termStructure(x.rows, x.t);
  return {
    symbol: x.symbol,
    spot: x.spot,
    expiries: ts.expiries.map((e) => ({ expiry: iso(e.expiry), dte: dteOf(e.expiry, x.t), forward: e.forward, atm_iv: e.atm_iv })),
    constant_maturity: ts.constant_maturity.map((p) => ({
      days: p.days,
      atm_iv: p.atm_iv,
      method: p.method,
      expiries: p.expiries.map(iso),
    })),
  };
}
