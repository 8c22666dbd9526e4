// What a failed `transbank-sdk` call says of Transbank (decision 1210): it answered with an HTTP status, or the
// request got no answer at all, with the error code of why. The SDK (6.x, common/request_service.js) catches
// axios's error and throws `new TransbankError(axiosError, error_message)`, whose only content is the text
// "<String(axiosError)>\n<Transbank's error_message>\n": axios's `code` and `response` are not kept (no `cause`).
// So the code is read where it is kept: on the error or its cause when present (an error not from the SDK), else
// in the first line, where Node writes a system error as "<syscall> <CODE> …" ("connect ECONNREFUSED 10.0.0.1:443",
// "getaddrinfo ENOTFOUND host", "read ECONNRESET"); axios's two failures that name no code are given theirs
// ("timeout of 10000ms exceeded" is ECONNABORTED, Node's "socket hang up" and its reset during the TLS handshake
// are ECONNRESET).

/**
 * Codes of a request that got no answer from Transbank: it never reached it (connection refused, host unknown or
 * its name not resolved for now, no route) or its answer never came (reset, closed, timed out). Transbank did not
 * refuse it; the caller decides whether sending it again is safe.
 */
const unansweredCodes = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
] as const;

export type TransbankFailure =
  /** Transbank (or what stands at its address) answered with this HTTP status. */
  | { readonly kind: 'answered'; readonly status: number }
  /** No answer came, for this code. */
  | { readonly kind: 'unanswered'; readonly code: (typeof unansweredCodes)[number] }
  /** Neither (a certificate refused, a bug): `code` when one was found. */
  | { readonly kind: 'other'; readonly code: string | null };

const unanswered: ReadonlySet<string> = new Set(unansweredCodes);

function ownCode(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string') return code;
  return cause === error ? null : ownCode(cause);
}

/** Failures Node and axios write with no code in their text, and the code each stands for. */
const uncodedFailures: ReadonlyArray<readonly [RegExp, string]> = [
  [/^timeout of \d+ms exceeded$/, 'ECONNABORTED'],
  [/^socket hang up$/, 'ECONNRESET'],
  // A reset during the TLS handshake (decision 1250).
  [
    /^Client network socket disconnected before secure TLS connection was established$/,
    'ECONNRESET',
  ],
];

/** The code in the axios error's text, the first line of the SDK's message. */
function writtenCode(firstLine: string): string | null {
  const text = firstLine.replace(/^\w*Error: /, '');
  const system = /^[a-z]+ (E[A-Z_]+)\b/.exec(text);
  if (system !== null) return system[1] ?? null;
  return uncodedFailures.find(([pattern]) => pattern.test(text))?.[1] ?? null;
}

/** Reads a failure the SDK threw: Transbank's HTTP status, or the code of a request that got no answer. */
export function transbankFailure(error: unknown): TransbankFailure {
  const text = error instanceof Error ? error.message : String(error);
  const firstLine = text.split('\n', 1)[0]?.trim() ?? '';
  const status = /^AxiosError: Request failed with status code (\d{3})$/.exec(firstLine);
  if (status !== null) return { kind: 'answered', status: Number(status[1]) };
  const code = ownCode(error) ?? writtenCode(firstLine);
  if (code !== null && unanswered.has(code))
    return { kind: 'unanswered', code: code as (typeof unansweredCodes)[number] };
  return { kind: 'other', code };
}

/**
 * Transbank answered and refused the request (a 4xx, or exactly `status` when given): nothing was done there. A 5xx
 * is no refusal: a gateway in front of Transbank can fail after Transbank applied the request (decision 1225). Nor
 * is 429: Transbank did nothing yet and asks to be asked later, so the caller's retry does (decision 1245).
 */
export function refusedByTransbank(error: unknown, status?: number): boolean {
  const failure = transbankFailure(error);
  if (failure.kind !== 'answered') return false;
  if (status !== undefined) return failure.status === status;
  return failure.status >= 400 && failure.status < 500 && failure.status !== 429;
}
