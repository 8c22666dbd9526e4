// One HTTP exchange: builds the URL, signs what the route requires (supplement §2.3), applies the timeout and
// turns transport failures into CobroClientError. Knows nothing about individual endpoints.
import { computeCobroSignature, computeSign, type SignParams } from './sign.ts';
import { CobroClientError } from './errors.ts';
import type { OperationSpec } from './operations.ts';
import type { CobroResponse } from './types.ts';

export const timeoutMsDefault = 30_000;
/** Longer than any sane API call; a larger value is a unit mistake (seconds passed as ms is the usual one). */
const timeoutMsMax = 10 * 60_000;
/** How much of a non-JSON body goes into the error message. */
const excerptCharsMax = 200;

/**
 * Keeps an integer past 2^53 - 1 exact (a wallet's balance or a sum may pass it; the server's decision 720): as a
 * bigint, where the runtime hands a reviver the number's source text (Node 21 and later, current browsers); elsewhere
 * it stays the rounded number JSON.parse makes.
 */
function exactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || Number.isSafeInteger(value) || context?.source === undefined)
    return value;
  return /^-?\d+$/.test(context.source) ? BigInt(context.source) : value;
}

export interface TransportConfig {
  readonly baseUrl: string;
  readonly publicToken: string;
  readonly privateToken: string;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  /** The time a Cobro-Signature carries (default: the system clock). */
  readonly now: () => Date;
}

/** Per-call options every method accepts. */
export interface CallOptions {
  /** Sent as `Idempotency-Key` (POST, PUT, DELETE): a retry with the same key replays the first answer. */
  readonly idempotencyKey?: string;
  /** Overrides the client's timeoutMs for this call. */
  readonly timeoutMs?: number;
  /** Cancels the call; the client then throws CobroClientError with kind `aborted`. */
  readonly signal?: AbortSignal;
}

type QueryValue = string | number | boolean | null | undefined;

export interface OperationCall {
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, QueryValue>>;
  readonly body?: object;
  readonly options?: CallOptions | undefined;
}

export function checkTimeoutMs(timeoutMs: number, what: string): number {
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > timeoutMsMax) {
    throw new CobroClientError(
      'invalid_argument',
      `${what} must be an integer from 1 to ${timeoutMsMax}, got ${timeoutMs}`,
    );
  }
  return timeoutMs;
}

/**
 * The path to send (ids percent-encoded) and the path to sign: the server signs the percent-decoded path it
 * received (signedPath in sign.ts), which is the path with the raw ids.
 */
function paths(
  template: string,
  params: Readonly<Record<string, string>>,
): { sent: string; signed: string } {
  let sent = template;
  let signed = template;
  for (const name of template.match(/\{(\w+)\}/g) ?? []) {
    const value = params[name.slice(1, -1)];
    if (typeof value !== 'string' || value === '') {
      throw new CobroClientError(
        'invalid_argument',
        `${template}: ${name.slice(1, -1)} must be a non-empty string`,
      );
    }
    sent = sent.replace(name, encodeURIComponent(value));
    signed = signed.replace(name, value);
  }
  return { sent, signed };
}

function queryEntries(query: Readonly<Record<string, QueryValue>>): Array<[string, string]> {
  const entries: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) entries.push([key, String(value)]);
  }
  return entries;
}

/** AbortSignal.any where it exists (Node 20.3+, browsers); Node 18 gets the same by hand. */
function eitherSignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([a, b]);
  const controller = new AbortController();
  for (const signal of [a, b]) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

export async function send<T>(
  config: TransportConfig,
  op: OperationSpec,
  call: OperationCall,
): Promise<CobroResponse<T>> {
  const { sent, signed } = paths(op.path, call.params ?? {});
  const entries = queryEntries(call.query ?? {});
  const queryText = entries
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  const url = `${config.baseUrl}${sent}${queryText === '' ? '' : `?${queryText}`}`;
  const label = `${op.method} ${sent}`;

  const headers: Record<string, string> = {
    accept: op.answers === 'csv' ? 'text/csv, application/json' : 'application/json',
  };
  if (op.auth !== 'none') headers.authorization = `Bearer ${config.publicToken}`;
  if (op.auth === 'sign') {
    // The server signs the query of a GET and the body of anything else (auth-plugin.ts signParams).
    const signParams: SignParams =
      op.method === 'GET' ? Object.fromEntries(entries) : ((call.body ?? {}) as SignParams);
    headers.sign = await computeSign(config.privateToken, signed, signParams);
  }
  const options = call.options ?? {};
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  let payload: string | undefined;
  if (call.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(call.body);
  }
  if (op.auth !== 'none') {
    // Every authenticated call also carries Cobro-Signature, which binds the exact body to this route and moment.
    const timestampS = Math.floor(config.now().getTime() / 1000);
    headers['cobro-signature'] = await computeCobroSignature(
      config.privateToken,
      timestampS,
      op.method,
      sent,
      payload ?? '',
    );
  }

  const timeoutMs =
    options.timeoutMs === undefined
      ? config.timeoutMs
      : checkTimeoutMs(options.timeoutMs, 'timeoutMs');
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal === undefined ? timeout : eitherSignal(timeout, options.signal);

  let httpStatus: number;
  let text: string;
  try {
    const response = await config.fetch(url, {
      method: op.method,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
      signal,
    });
    httpStatus = response.status;
    // Reading the body is inside the try: the timeout covers a server that sends headers and then stalls.
    text = await response.text();
  } catch (error) {
    if (timeout.aborted)
      throw new CobroClientError('timeout', `${label} timed out after ${timeoutMs} ms`, {
        cause: error,
      });
    if (options.signal?.aborted === true)
      throw new CobroClientError('aborted', `${label} was aborted by the caller`, { cause: error });
    throw new CobroClientError(
      'network',
      `${label} to ${config.baseUrl} failed: ${describeCause(error)}`,
      { cause: error },
    );
  }
  // A CSV route answers its 200 as text; its errors are JSON like every other route's.
  if (op.answers === 'csv' && httpStatus === 200) return { httpStatus, body: text as T };
  try {
    return { httpStatus, body: JSON.parse(text, exactIntegers as never) as T };
  } catch (error) {
    const excerpt = text.length > excerptCharsMax ? `${text.slice(0, excerptCharsMax)}…` : text;
    throw new CobroClientError(
      'invalid_response',
      `${label} answered HTTP ${httpStatus} with a body that is not JSON: ${JSON.stringify(excerpt)}`,
      {
        cause: error,
        httpStatus,
      },
    );
  }
}
