/** The error vocabulary of the API (spec "Errors") and the one exception type routes and plugins throw. */

export const ERROR_CODES = {
  UNAUTHORIZED: { status: 401, when: 'missing or invalid API key' },
  FORBIDDEN: { status: 403, when: 'subscription does not allow API access (status not active, or plan without API access)' },
  NOT_FOUND: { status: 404, when: 'route, symbol, expiry or data absent' },
  VALIDATION_ERROR: { status: 422, when: 'bad query parameters; error.details.errors lists every bad parameter' },
  RATE_LIMIT_EXCEEDED: { status: 429, when: 'per-minute burst or monthly quota exhausted; Retry-After header sent' },
  UPSTREAM_ERROR: { status: 503, when: 'cache or database temporarily unreachable' },
  INTERNAL_ERROR: { status: 500, when: 'anything else (no internals are disclosed)' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_NAMES = Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]];

/** One bad parameter in a VALIDATION_ERROR. */
export interface ParamError {
  readonly name: string;
  readonly location: 'query' | 'path' | 'header';
  readonly message: string;
  readonly received: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_CODES[code].status;
  }
}

export const notFound = (message: string): ApiError => new ApiError('NOT_FOUND', message);

export const validationError = (errors: readonly ParamError[]): ApiError =>
  new ApiError('VALIDATION_ERROR', `invalid request parameter${errors.length === 1 ? '' : 's'}: ${errors.map((e) => e.name).join(', ')}`, {
    errors,
  });
