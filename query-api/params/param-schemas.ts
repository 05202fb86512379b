import { z } from 'zod';
import { SYMBOLS } from '#schemas/events.ts';

/** Reusable query-parameter schemas (input = the raw query string value). */

export const symbolParam = z.enum(SYMBOLS, { error: `must be one of ${SYMBOLS.join(', ')}` });

/** An integer in [min, max]; only plain decimal digits are accepted (no '', '1e3', '0x10'). */
export function intParam(min: number, max: number) {
  return z.preprocess(
    (v) => (typeof v === 'string' && /^-?\d{1,12}$/.test(v) ? Number(v) : v),
    z
      .number({ error: `must be an integer between ${min} and ${max}` })
      .int({ error: `must be an integer between ${min} and ${max}` })
      .min(min, { error: `must be >= ${min}` })
      .max(max, { error: `must be <= ${max}` }),
  );
}
