/** Query and response schemas of /v2/options/iv/smile and /v2/options/iv/term-structure (strict responses). */
import { z } from 'zod';
import { symbolParam } from '../params/param-schemas.ts';
import { parseCsv, parseExpiry } from '../params/query-params.ts';
import { asOfParam, exchangesParam } from '../gex/schemas.ts';

export const smileQuery = z.object({
  symbol: symbolParam,
  exchanges: exchangesParam,
  expiry: z
    .string()
    .refine((s) => parseExpiry(s) !== null, { error: 'expiry date: token like 27DEC24 or ISO date YYYY-MM-DD' })
    .optional()
    .describe('one expiry (UTC date: 27DEC24 or 2024-12-27); omit for every listed expiry; 404 when not listed'),
  include: z
    .string()
    .refine((s) => s.length <= 256 && parseCsv(s).every((x) => x === 'venues'), { error: 'CSV of venues' })
    .optional()
    .describe("venues: every venue's own curve next to the consolidated one (omitted by default)"),
  as_of: asOfParam,
});

export const termStructureQuery = z.object({ symbol: symbolParam, exchanges: exchangesParam, as_of: asOfParam });

const num = z.number();
const nnum = z.number().nullable();

const curve = {
  forward: num.describe('USD, OI-weighted venue forwards of the expiry'),
  atm_iv: nnum.describe('IV at K = F, linear in strike between the bracketing strikes (fraction)'),
  iv_25d_call: nnum.describe('IV at call delta +0.25, linear in delta between neighbouring OTM calls'),
  iv_25d_put: nnum.describe('IV at put delta −0.25, linear in delta between neighbouring OTM puts'),
  rr_25d: nnum.describe('risk reversal: iv_25d_call − iv_25d_put'),
  bf_25d: nnum.describe('butterfly: (iv_25d_call + iv_25d_put) / 2 − atm_iv'),
  points: z.array(
    z.strictObject({
      strike: num,
      log_moneyness: num.describe('ln(K / F)'),
      type: z.enum(['call', 'put']).describe('the out-of-the-money option of the strike (put below F, call from F)'),
      delta: nnum.describe("Black-76 delta at the point's mark IV (r = 0, on F)"),
      mark_iv: nnum,
      bid_iv: nnum.describe('bid IV of the venue holding the best bid'),
      ask_iv: nnum.describe('ask IV of the venue holding the best ask'),
    }),
  ),
};

export const smileData = z.strictObject({
  symbol: z.string(),
  spot: num,
  expiries: z.array(
    z.strictObject({
      expiry: z.string(),
      dte: num,
      ...curve,
      venues: z.array(z.strictObject({ venue: z.string(), ...curve })).optional(),
    }),
  ),
});

export const termStructureData = z.strictObject({
  symbol: z.string(),
  spot: num,
  expiries: z.array(z.strictObject({ expiry: z.string(), dte: num, forward: num, atm_iv: nnum })),
  constant_maturity: z.array(
    z.strictObject({
      days: num,
      atm_iv: nnum,
      method: z
        .enum(['interpolated', 'flat_front'])
        .nullable()
        .describe(
          'interpolated in total variance between two expiries; flat_front = shorter than the front expiry (its IV); null = beyond the last expiry',
        ),
      expiries: z.array(z.string()).describe('the expiries used'),
    }),
  ),
});
