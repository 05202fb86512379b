import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MetaFields, SuccessEnvelope } from '../envelope/envelope.ts';
import type { Grid } from './grid.ts';
import { timestampsJson, type ServedSeries } from './serving.ts';
import type { AppContext } from '../types.ts';

/** The axis of an answer: the served series' (cut from the serving structure), else computed. */
export function servedTimestamps(grid: Grid, series: Iterable<ServedSeries | null>): string {
  for (const s of series) if (s !== null) return s.timestamps;
  return timestampsJson(grid);
}

/**
 * Sends a market answer whose `data` is already JSON (serving.ts renders the columns' text): spliced into the
 * envelope as is; under RESPONSE_VALIDATION parsed back and sent as an object so the schema checks it.
 */
export function sendMarket<T>(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  dataJson: string,
  meta: MetaFields,
): SuccessEnvelope<T> {
  if (ctx.config.responseValidation) return ctx.respond.ok(request, JSON.parse(dataJson) as T, meta);
  // A body that is not an object bypasses the serializer; the typed handler expects the envelope object (as in
  // /v2/meta). Encoded here once: a string body would be measured (Buffer.byteLength) and then encoded again.
  return reply.type('application/json; charset=utf-8').send(Buffer.from(ctx.respond.okJson(request, { json: dataJson }, meta))) as never;
}
