/** Sending GEX answers: pre-serialized data in production, the object (schema-checked) under RESPONSE_VALIDATION. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MetaFields, SuccessEnvelope } from '../envelope/envelope.ts';
import { snapshotMeta } from '../envelope/envelope.ts';
import type { AppContext } from '../types.ts';
import type { Rendered } from './memo.ts';
import type { ResolvedInstant } from './point-in-time.ts';

export function sendRendered<T>(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  r: Rendered<T>,
  meta: MetaFields,
): SuccessEnvelope<T> {
  if (ctx.config.responseValidation) return ctx.respond.ok(request, r.data, meta);
  // A string body bypasses the serializer; the typed handler expects the envelope object (as in /v2/meta).
  return reply.type('application/json; charset=utf-8').send(ctx.respond.okJson(request, { json: r.json }, meta)) as never;
}

/** Snapshot meta plus, for point-in-time requests, history_depth_enforced and extra.history_clamp. */
export function gexMeta(
  now: number,
  s: Parameters<typeof snapshotMeta>[1] & { readonly history?: ResolvedInstant['history'] },
): MetaFields {
  const { history, ...rest } = s;
  const meta = snapshotMeta(now, rest);
  if (history === undefined) return meta;
  return {
    ...meta,
    history_depth_enforced: history.history_depth_enforced,
    ...(history.extra !== undefined || meta.extra !== undefined ? { extra: { ...meta.extra, ...history.extra } } : {}),
  };
}

/** Meta of an answer from a cached snapshot: everything but the per-request fields, serialized once. */
export interface CachedMeta {
  readonly computedAt: number;
  /** Meta fields without freshness_seconds (for the validated path). */
  readonly fields: MetaFields;
  /** JSON of `fields` without the braces. */
  readonly tail: string;
}

export function cachedMeta(s: Parameters<typeof snapshotMeta>[1] & { readonly computedAt: number }): CachedMeta {
  const { freshness_seconds: _f, ...fields } = snapshotMeta(s.computedAt, s);
  return { computedAt: s.computedAt, fields, tail: JSON.stringify(fields).slice(1, -1) };
}

/**
 * Hot path of the latest-snapshot routes: data and the snapshot-constant meta are pre-serialized; per request
 * only the responder's base meta (version, timestamp, request_id, rate_limit) and freshness_seconds.
 */
export function sendCached<T>(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  r: Rendered<T>,
  m: CachedMeta,
): SuccessEnvelope<T> {
  const freshness = Math.max(0, Math.round((ctx.clock() - m.computedAt) / 100) / 10);
  if (ctx.config.responseValidation) return ctx.respond.ok(request, r.data, { ...m.fields, freshness_seconds: freshness });
  const json = `{"success":true,"data":${r.json},"meta":${ctx.respond.metaHead(request)},"freshness_seconds":${freshness}${m.tail === '' ? '' : `,${m.tail}`}}}`;
  return reply.type('application/json; charset=utf-8').send(json) as never;
}
