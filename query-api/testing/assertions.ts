import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';

export interface ErrorBody {
  readonly success: false;
  readonly error: { readonly code: string; readonly message: string; readonly details?: Record<string, unknown> };
  readonly meta: { readonly version: string; readonly timestamp: string; readonly request_id?: string };
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Asserts the error envelope of the spec and returns it. */
export function assertError(res: LightMyRequestResponse, status: number, code: string): ErrorBody {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const body = res.json<ErrorBody>();
  assert.equal(body.success, false);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.equal(body.meta.version, '2.0');
  assert.match(body.meta.timestamp, ISO);
  assert.equal(body.meta.request_id, res.headers['x-request-id']);
  return body;
}

/** Asserts the success envelope and returns data and meta. */
export function assertOk<T = Record<string, unknown>>(
  res: LightMyRequestResponse,
): { readonly data: T; readonly meta: Record<string, unknown> } {
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json<{ success: boolean; data: T; meta: Record<string, unknown> }>();
  assert.equal(body.success, true);
  assert.equal(body.meta.version, '2.0');
  assert.match(String(body.meta.timestamp), ISO);
  assert.equal(body.meta.request_id, res.headers['x-request-id']);
  return { data: body.data, meta: body.meta };
}
