/**
 * What the page says when the API refuses a request (pure). The API's own message is shown too; the first
 * sentence says what to do.
 */
export interface ApiFailure {
  readonly status: number;
  readonly code: string | null;
  readonly message: string | null;
  /** Retry-After header, seconds (429). */
  readonly retryAfterSeconds: number | null;
}

export function explainFailure(f: ApiFailure): string {
  const detail = f.message === null ? '' : ` (${f.message})`;
  switch (f.status) {
    case 401:
      return `401 Unauthorized: the API key was refused. Check that it is typed exactly as issued (no spaces) and save it again${detail}.`;
    case 403:
      return `403 Forbidden: this key's subscription does not include API access. Renew or upgrade the plan in the portal${detail}.`;
    case 429: {
      const wait = f.retryAfterSeconds === null ? 'a moment' : `${f.retryAfterSeconds} s`;
      return `429 Too many requests: the plan's rate limit or monthly quota is used up. Try again in ${wait}; pause the replay meanwhile${detail}.`;
    }
    case 404:
      return `No data${detail}.`;
    case 0:
      return `The API cannot be reached${detail}. Check the connection and reload.`;
    default:
      return f.status >= 500
        ? `The API is temporarily unavailable (${f.status})${detail}; it retries by itself, try again shortly.`
        : `Request failed (${f.status})${detail}.`;
  }
}
