import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyRequest } from 'fastify';
import { StoreQueryError, StoreUnavailableError } from '#clickhouse/errors.ts';
import { LEAK } from '../testing/fuzz.ts';
import { toApiError } from './errors.ts';

const request = { method: 'GET', url: '/v2/gex/levels?symbol=BTCUSDT', query: {}, headers: {}, params: {} } as unknown as FastifyRequest;

test('unexpected errors become generic 500/503 bodies: no message, stack, SQL, table or path of the original', () => {
  const internal = new TypeError(
    "Cannot read properties of undefined (reading 'x') at readLevels (/work/main/query-api/gex/read.ts:12:5): SELECT * FROM gex_snapshots FINAL",
  );
  const e = toApiError(internal, request);
  assert.deepEqual([e.status, e.code, e.message], [500, 'INTERNAL_ERROR', 'internal error; quote the request id when reporting it']);
  assert.doesNotMatch(JSON.stringify(e), LEAK);
  const down = toApiError(
    new StoreUnavailableError('chdb: connect ECONNREFUSED 127.0.0.1:8123 (Code: 210. DB::Exception)', 'query'),
    request,
  );
  assert.deepEqual([down.status, down.code], [503, 'UPSTREAM_ERROR']);
  assert.doesNotMatch(JSON.stringify(down), LEAK);
  const query = toApiError(
    new StoreQueryError("Code: 60. DB::Exception: Unknown table expression identifier 'option_trades'", 'query', '60', 'UNKNOWN_TABLE'),
    request,
  );
  assert.deepEqual([query.status, query.code], [500, 'INTERNAL_ERROR']);
  assert.doesNotMatch(JSON.stringify(query), LEAK);
  assert.doesNotMatch(JSON.stringify(toApiError('a thrown string with option_trades', request)), LEAK);
});
