import type { FastifyError, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isStoreUnavailable } from '#clickhouse/errors.ts';
import { CircuitOpenError } from '#clickhouse/breaker.ts';
import type { Responder } from '../envelope/envelope.ts';
import { ApiError, validationError, type ParamError } from '../envelope/errors.ts';

const LOCATION = { querystring: 'query', params: 'path', headers: 'header', body: 'query' } as const;

function received(request: FastifyRequest, location: ParamError['location'], name: string): unknown {
  const source = location === 'path' ? request.params : location === 'header' ? request.headers : request.query;
  if (typeof source !== 'object' || source === null) return null;
  const v = (source as Record<string, unknown>)[name];
  return v === undefined ? null : v;
}

/** One entry per bad parameter, with every message for it. */
function paramErrors(request: FastifyRequest, err: FastifyError): ParamError[] {
  const location = LOCATION[(err.validationContext ?? 'querystring') as keyof typeof LOCATION] ?? 'query';
  const byName = new Map<string, string[]>();
  for (const v of err.validation ?? []) {
    const path = v.instancePath.split('/').filter((p) => p !== '');
    const missing = (v.params as Record<string, unknown> | undefined)?.['missingProperty'];
    const name = path[0] ?? (typeof missing === 'string' ? missing : '(request)');
    const list = byName.get(name) ?? [];
    list.push(v.message ?? 'invalid');
    byName.set(name, list);
  }
  return [...byName].map(([name, messages]) => ({
    name,
    location,
    message: messages.join('; '),
    received: received(request, location, name),
  }));
}

/** Maps anything thrown to an ApiError; never exposes internals. */
export function toApiError(err: unknown, request: FastifyRequest): ApiError {
  if (err instanceof ApiError) return err;
  if (isStoreUnavailable(err)) {
    // While the store circuit is open: until its next health probe; otherwise a second.
    const ms = err instanceof CircuitOpenError ? err.retryAfterMs : 1_000;
    return new ApiError('UPSTREAM_ERROR', 'a data store is temporarily unreachable; retry shortly', undefined, {
      'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))),
    });
  }
  const fe = err as FastifyError;
  if (Array.isArray(fe.validation) && fe.validation.length > 0) return validationError(paramErrors(request, fe));
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status === 404 || status === 405) return new ApiError('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`);
  if (status === 413)
    return validationError([
      {
        name: '(body)',
        location: 'query',
        message: 'request body over the size limit (HTTP_BODY_LIMIT_BYTES); the /v2 routes take no body',
        received: null,
      },
    ]);
  if (status >= 400 && status < 500) {
    return validationError([{ name: '(request)', location: 'query', message: 'malformed request', received: null }]);
  }
  return new ApiError('INTERNAL_ERROR', 'internal error; quote the request id when reporting it');
}

/** One error handler for the whole app, and the envelope for unknown routes. */
export const errorsPlugin = fp<{ readonly respond: Responder }>(
  async (app, { respond }) => {
    app.setErrorHandler(async (err, request, reply) => {
      const e = toApiError(err, request);
      if (e.status >= 500) {
        if (e.code === 'UPSTREAM_ERROR') request.log.warn({ err }, 'upstream unavailable');
        else request.log.error({ err }, 'internal error');
      }
      for (const [k, v] of Object.entries(e.headers ?? {})) reply.header(k, v);
      return reply.code(e.status).send(respond.error(request, e.code, e.message, e.details));
    });
    app.setNotFoundHandler(async (request, reply) => {
      return reply.code(404).send(respond.error(request, 'NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`));
    });
  },
  { name: 'gex-errors' },
);
