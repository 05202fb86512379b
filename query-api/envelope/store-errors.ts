import { StoreError, StoreUnavailableError } from '#clickhouse/errors.ts';

/**
 * True when a store failure means "the store cannot be reached" (-> 503 UPSTREAM_ERROR). A closed embedded
 * connection is reported as a StoreQueryError by clickhouse/errors.ts; for a client it is an unavailable
 * store all the same.
 */
export function isStoreUnavailable(err: unknown): boolean {
  if (err instanceof StoreUnavailableError || (err instanceof Error && err.name === 'StoreUnavailableError')) return true;
  return err instanceof StoreError && /connection is closed/i.test(err.message);
}
