import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MetaFields, SuccessEnvelope } from '../../envelope.ts';
import type { Grid } from '../../market/grid.ts';
import type { AppContext } from '../../types.ts';

/** JSON array of the grid's bucket starts (epoch ms), as JSON.stringify(timestamps(grid)). */
export function timestampsJson(grid: Grid): string {
  const out = new Array<string>(grid.points);
  for (let i = 0; i < grid.points; i++) out[i] = String(grid.fromMs + i * grid.stepMs);
  return `[${out.join(',')}]`;
}

/**
 * Sends a market answer whose `data` is already JSON (serving.ts renders the columns' text): spliced into the
 * envelope as is; under RESPONSE_VALIDATION parsed back and sent as an object so the schema checks it.
 */
export function sendMarket<T>(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, dataJson: string, meta: MetaFields): SuccessEnvelope<T> {
  if (ctx.config.responseValidation) return ctx.respond.ok(request, JSON.parse(dataJson) as T, meta);
  // A string body bypasses the serializer; the typed handler expects the envelope object (as in /v2/meta).
  return reply.type('application/json; charset=utf-8').send(ctx.respond.okJson(request, { json: dataJson }, meta)) as never;
}
