import type { FastifyRequest } from 'fastify';
import type { ErrorCode } from './errors.ts';
import type { ErrorEnvelope, Meta } from './envelope-schemas.ts';

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
  /**
   * JSON of the per-request meta fields (version, timestamp, request_id, rate_limit when set), in that order,
   * with the opening brace and without the closing one: for splicing pre-serialized meta after it.
   */
  metaHead(request: FastifyRequest): string;
  error(request: FastifyRequest | undefined, code: ErrorCode, message: string, details?: Readonly<Record<string, unknown>>): ErrorEnvelope;
}

/** ISO-8601 text of the clock, computed once per millisecond. */
function isoClock(clock: () => number): () => string {
  let lastMs = Number.NaN;
  let last = '';
  return () => {
    const ms = clock();
    if (ms !== lastMs) {
      lastMs = ms;
      last = new Date(ms).toISOString();
    }
    return last;
  };
}

const VERSION_HEAD = `{"version":${JSON.stringify(RESPONSE_VERSION)},"timestamp":"`;

export function createResponder(clock: () => number): Responder {
  const timestamp = isoClock(clock);
  const metaHead = (request: FastifyRequest): string => {
    const head = `${VERSION_HEAD}${timestamp()}","request_id":${JSON.stringify(request.id)}`;
    const limits = request.limits;
    if (limits === null) return head;
    const b = limits.burst;
    return `${head},"rate_limit":{"limit":${JSON.stringify(b.limit)},"remaining":${JSON.stringify(b.remaining)},"reset":${JSON.stringify(b.reset)}}`;
  };
  return {
    ok<T>(request: FastifyRequest, data: T, meta: MetaFields = {}): SuccessEnvelope<T> {
      const limits = request.limits;
      return {
        success: true,
        data,
        meta: {
          version: RESPONSE_VERSION,
          timestamp: timestamp(),
          request_id: request.id,
          ...(limits !== null
            ? { rate_limit: { limit: limits.burst.limit, remaining: limits.burst.remaining, reset: limits.burst.reset } }
            : {}),
          ...meta,
        },
      };
    },
    okJson(request: FastifyRequest, data: JsonData, meta: MetaFields = {}): string {
      const fields = JSON.stringify(meta);
      return `{"success":true,"data":${data.json},"meta":${metaHead(request)}${fields === '{}' ? '}' : `,${fields.slice(1)}`}}`;
    },
    metaHead,
    error(request, code, message, details) {
      return {
        success: false,
        error: details === undefined ? { code, message } : { code, message, details: { ...details } },
        meta: {
          version: RESPONSE_VERSION,
          timestamp: timestamp(),
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
