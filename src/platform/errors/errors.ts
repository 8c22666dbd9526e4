import { resultCodes, type ResultCode, type ResultParams } from './result-codes.ts';
import { limits } from '../../limits/index.ts';

// The error catalogue (STYLE rule 8): every code, its HTTP status and its envelope. docs/errors.md lists them all,
// and a test keeps the two in sync. Services return or throw ApiError; one handler renders it.
export const errorCatalogue = {
  validation_failed: { http: 400, type: 'Unprocessable Entity' },
  malformed_body: { http: 400, type: 'Unprocessable Entity' },
  body_too_large: { http: 400, type: 'Unprocessable Entity' },
  unsupported_media_type: { http: 415, type: 'Unsupported Media Type' },
  token_missing: { http: 401, type: 'Unauthorized' },
  token_invalid: { http: 401, type: 'Unauthorized' },
  sign_missing: { http: 401, type: 'Unauthorized' },
  sign_invalid: { http: 401, type: 'Unauthorized' },
  signature_missing: { http: 401, type: 'Unauthorized' },
  signature_invalid: { http: 401, type: 'Unauthorized' },
  signature_expired: { http: 401, type: 'Unauthorized' },
  forbidden: { http: 403, type: 'Forbidden' },
  not_found: { http: 404, type: 'Not Found' },
  /** reference §7.13: POST /api/suscriptionsdeletecards answers `{"status":"failed","type":"card","message_error":"is not valid"}`. */
  card_invalid: { http: 400, type: 'card' },
  route_not_found: { http: 404, type: 'Not Found' },
  method_not_allowed: { http: 405, type: 'Method Not Allowed' },
  not_acceptable: { http: 406, type: 'Not Acceptable' },
  idempotency_in_flight: { http: 409, type: 'Conflict' },
  idempotency_mismatch: { http: 422, type: 'Unprocessable Entity' },
  rate_limited: { http: 429, type: 'Too Many Requests' },
  internal: { http: 500, type: 'Internal Server Error' },
  unavailable: { http: 503, type: 'Service Unavailable' },
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

export interface ErrorEnvelope {
  status: 'failed';
  type: string;
  message_error: string;
  [extra: string]: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly extra: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }

  get httpStatus(): number {
    return errorCatalogue[this.code].http;
  }

  envelope(): ErrorEnvelope {
    return {
      status: 'failed',
      type: errorCatalogue[this.code].type,
      message_error: this.message,
      ...this.extra,
    };
  }
}

/** Field-level validation failure in the seed's shape: `amount:is empty,email:invalid` plus an `errors` map. */
export function validationError(fieldErrors: Readonly<Record<string, string>>): ApiError {
  const message = Object.entries(fieldErrors)
    .map(([field, problem]) => `${field}:${problem}`)
    .join(',');
  return new ApiError('validation_failed', message, { errors: { ...fieldErrors } });
}

/**
 * The database does not answer (decision 420): 503 with Retry-After, never 500. Nothing of the request is known to
 * have happened; a retry with the same Idempotency-Key (or, for a payout, the same order) runs it at most once.
 */
export function databaseUnavailable(
  message = 'the database does not answer; retry later',
): ApiError {
  return new ApiError(
    'unavailable',
    message,
    {},
    { 'retry-after': String(limits.dbUnavailableRetryAfterS) },
  );
}

/** The embedded database's disk is almost full (decision 420): writes wait, as for an outage. */
export const diskAlmostFull = 'the database cannot write now: its disk is almost full; retry later';

export function notFound(what: string): ApiError {
  return new ApiError('not_found', `${what} not found`, { id: 'is not valid' });
}

/**
 * A business rule refused the operation: HTTP 200 with `status: failed` (supplement §3). These are results,
 * not exceptions: a service returns one and the route sends it as is. The code and its message come from the
 * catalogue in result-codes.ts, so a bare string does not compile.
 */
export interface RuleFailure {
  readonly status: 'failed';
  readonly type: ResultCode;
  readonly message_error: string;
}

export function ruleFailure<C extends ResultCode>(
  code: C,
  ...params: ResultParams<C>
): RuleFailure {
  const template = resultCodes[code] as (...args: ResultParams<C>) => string;
  return { status: 'failed', type: code, message_error: template(...params) };
}
