/**
 * The public /v2 API with the user's key (browser). The key is typed once and kept in sessionStorage (this tab
 * only, gone when it closes). Every failure becomes an ApiError carrying the message the page shows.
 */
import { explainFailure, type ApiFailure } from './messages.ts';

const KEY_ITEM = 'gex.apiKey';

export class ApiError extends Error {
  constructor(readonly failure: ApiFailure) {
    super(explainFailure(failure));
  }
}

export interface Envelope<T> {
  readonly data: T;
  readonly meta: { readonly computed_at?: string; readonly spot_price?: number; readonly extra?: Record<string, unknown> };
}

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY_ITEM, key);
}

/** GET a /v2 path with the stored key; resolves with the envelope or rejects with an ApiError. */
export async function getV2<T>(path: string, signal?: AbortSignal): Promise<Envelope<T>> {
  const key = storedKey();
  if (key === null) throw new ApiError({ status: 401, code: 'UNAUTHORIZED', message: 'no API key entered yet', retryAfterSeconds: null });
  let res: Response;
  try {
    res = await fetch(path, { headers: { 'x-api-key': key }, ...(signal ? { signal } : {}) });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiError({ status: 0, code: null, message: e instanceof Error ? e.message : String(e), retryAfterSeconds: null });
  }
  const body = (await res.json().catch(() => null)) as {
    success?: boolean;
    data?: T;
    meta?: Envelope<T>['meta'];
    error?: { code?: string; message?: string };
  } | null;
  if (res.ok && body?.success === true && body.data !== undefined) return { data: body.data, meta: body.meta ?? {} };
  const retry = Number(res.headers.get('retry-after'));
  throw new ApiError({
    status: res.status,
    code: body?.error?.code ?? null,
    message: body?.error?.message ?? null,
    retryAfterSeconds: Number.isFinite(retry) && res.headers.has('retry-after') ? retry : null,
  });
}
