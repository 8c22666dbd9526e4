// The one exception the client throws: the call did not produce a JSON answer. HTTP error statuses are not
// exceptions (they come back as { httpStatus, body }), so callers handle the API's answers in one place.

export type CobroClientErrorKind =
  | 'invalid_argument'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'invalid_response';

export class CobroClientError extends Error {
  readonly kind: CobroClientErrorKind;
  /** Set when the server answered but the body was not JSON. */
  readonly httpStatus: number | null;

  constructor(
    kind: CobroClientErrorKind,
    message: string,
    options: { cause?: unknown; httpStatus?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CobroClientError';
    this.kind = kind;
    this.httpStatus = options.httpStatus ?? null;
  }
}

/** The seed's failure shape: an error envelope (4xx/5xx) or a refused business rule sent with HTTP 200. */
export interface FailedBody {
  readonly status: 'failed';
  readonly message_error: string;
  readonly type?: string;
}

/**
 * True when the body reports a failure, whatever the HTTP status: Cobro (like Payku) answers some refusals, such
 * as insufficient funds, with HTTP 200 and `status: "failed"`. Narrows the body to the failure shape.
 */
export function isFailed(body: unknown): body is FailedBody {
  if (body === null || typeof body !== 'object') return false;
  const candidate = body as { status?: unknown; message_error?: unknown };
  return candidate.status === 'failed' && typeof candidate.message_error === 'string';
}
