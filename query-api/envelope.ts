import type { FastifyRequest } from 'fastify';
import type { ErrorCode } from './errors.ts';
import type { ErrorEnvelope, Meta } from './schemas/envelope.ts';

/** Builds the success and error envelopes (spec "Success envelope", "Error envelope", "meta block"). */

export const RESPONSE_VERSION = '2.0' as const;

/** Optional meta fields a route may set; `version`, `timestamp`, `request_id` and `rate_limit` are filled in. */
export type MetaFields = Omit<Meta, 'version' | 'timestamp' | 'request_id' | 'rate_limit'>;

export interface SuccessEnvelope<T> {
  readonly success: true;
  readonly data: T;
  readonly meta: Meta;
}

/** A `data` value already serialized to JSON (e.g. a cached snapshot), spliced into the envelope as is. */
export interface JsonData {
  readonly json: string;
}

export interface Responder {
  ok<T>(request: FastifyRequest, data: T, meta?: MetaFields): SuccessEnvelope<T>;
  /**
   * Same envelope around pre-serialized data: no re-serialization of the (large, cached) payload. Send the
   * result with `reply.type('application/json; charset=utf-8')`. With RESPONSE_VALIDATION on, the caller
   * should send `ok(request, JSON.parse(data.json))` instead so the schema is checked.
   */
  okJson(request: FastifyRequest, data: JsonData, meta?: MetaFields): string;
  error(request: FastifyRequest | undefined, code: ErrorCode, message: string, details?: Readonly<Record<string, unknown>>): ErrorEnvelope;
}

export function createResponder(clock: () => number): Responder {
  return {
    ok<T>(request: FastifyRequest, data: T, meta: MetaFields = {}): SuccessEnvelope<T> {
      const limits = request.limits;
      return {
        success: true,
        data,
        meta: {
          version: RESPONSE_VERSION,
          timestamp: new Date(clock()).toISOString(),
          request_id: request.id,
          ...(limits !== null ? { rate_limit: { limit: limits.burst.limit, remaining: limits.burst.remaining, reset: limits.burst.reset } } : {}),
          ...meta,
        },
      };
    },
    okJson(request: FastifyRequest, data: JsonData, meta: MetaFields = {}): string {
      const env = this.ok(request, null, meta);
      return `{"success":true,"data":${data.json},"meta":${JSON.stringify(env.meta)}}`;
    },
    error(request, code, message, details) {
      return {
        success: false,
        error: details === undefined ? { code, message } : { code, message, details: { ...details } },
        meta: {
          version: RESPONSE_VERSION,
          timestamp: new Date(clock()).toISOString(),
          ...(request !== undefined ? { request_id: request.id } : {}),
        },
      };
    },
  };
}

/** Snapshot meta: symbol, spot, computed_at and its age, contributing/filtered venues. */
export function snapshotMeta(
  now: number,
  s: {
    readonly symbol: string;
    readonly spotPrice?: number | null;
    readonly computedAt?: number | null;
    readonly source?: readonly string[];
    readonly exchangesFiltered?: readonly string[];
    readonly extra?: Readonly<Record<string, unknown>>;
  },
): MetaFields {
  return {
    symbol: s.symbol,
    ...(s.spotPrice !== undefined ? { spot_price: s.spotPrice } : {}),
    ...(s.computedAt != null
      ? { computed_at: new Date(s.computedAt).toISOString(), freshness_seconds: Math.max(0, Math.round((now - s.computedAt) / 100) / 10) }
      : {}),
    ...(s.source !== undefined ? { source: [...s.source] } : {}),
    ...(s.exchangesFiltered !== undefined ? { exchanges_filtered: [...s.exchangesFiltered] } : {}),
    ...(s.extra !== undefined ? { extra: { ...s.extra } } : {}),
  };
}
