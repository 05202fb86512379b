import { z } from 'zod';
import { ERROR_CODE_NAMES } from './errors.ts';

/** Zod schemas of the response envelopes (spec "Success envelope", "Error envelope", "meta block"). */

export const rateLimitEchoSchema = z.object({
  limit: z.number().int().nullable().describe('per-minute cap in force; null = unlimited'),
  remaining: z.number().int().nullable(),
  reset: z.number().int().describe('Unix seconds when the minute window ends'),
});

export const metaSchema = z.object({
  version: z.literal('2.0'),
  timestamp: z.string().describe('ISO-8601 instant of the response'),
  request_id: z.string().optional().describe('equals the X-Request-ID response header'),
  symbol: z.string().optional(),
  spot_price: z.number().nullable().optional(),
  computed_at: z.string().optional().describe('ISO-8601 instant of the snapshot'),
  freshness_seconds: z.number().optional().describe('age of the snapshot'),
  source: z.array(z.string()).optional().describe('venues contributing'),
  exchanges_filtered: z.array(z.string()).optional().describe('venues applied by a venue filter'),
  rate_limit: rateLimitEchoSchema.optional(),
  history_depth_enforced: z.boolean().optional(),
  extra: z.record(z.string(), z.unknown()).optional().describe('endpoint-specific keys'),
});
export type Meta = z.output<typeof metaSchema>;

export function successSchema<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), data, meta: metaSchema });
}

export const errorMetaSchema = z.object({
  version: z.literal('2.0'),
  timestamp: z.string(),
  request_id: z.string().optional(),
});

export const errorEnvelopeSchema = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.enum(ERROR_CODE_NAMES),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
    meta: errorMetaSchema,
  })
  .describe('Error envelope');
export type ErrorEnvelope = z.output<typeof errorEnvelopeSchema>;

/** The error statuses a route can answer (401 and 403 when it needs a key), each with the error envelope. */
export function errorResponses(opts: { readonly auth: boolean }) {
  const base = {
    404: errorEnvelopeSchema,
    422: errorEnvelopeSchema,
    429: errorEnvelopeSchema,
    500: errorEnvelopeSchema,
    503: errorEnvelopeSchema,
  };
  return opts.auth ? { ...base, 401: errorEnvelopeSchema, 403: errorEnvelopeSchema } : base;
}

/** Response map of a route: 200 with the data schema plus the error statuses the route can answer. */
export function responses<T extends z.ZodType>(data: T, opts: { readonly auth: boolean }) {
  return { 200: successSchema(data), ...errorResponses(opts) };
}
