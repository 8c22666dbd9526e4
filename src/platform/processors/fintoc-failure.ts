// What a failed call through the `fintoc` client (1.15.0) says of Fintoc (decision 1240). The client's
// `canRaiseHTTPError` turns an HTTP error answer into the error class its body's `error.type` names and keeps
// nothing else: not the status. So a 5xx whose body names `invalid_request_error` (a gateway failing after Fintoc
// acted, in Fintoc's shape) threw the very class a 400 does, and a body that is not Fintoc's error (a proxy's HTML
// 502) threw a TypeError reading it. Nor does the client check a 2xx body: a garbled 200 came back as a resource
// whose keys are the body's characters, with no id and no status. Here the client's axios instance keeps the status:
// an error answer in Fintoc's shape still throws the class the client picks for it (its own `getErrorClass`), now
// with its status known; any other answer that cannot be read, 2xx included, throws FintocUnreadableAnswer.
import { getErrorClass } from 'fintoc/build/main/lib/utils.js';

/** An answer whose body is not what Fintoc sends (not JSON, not an object, or an error not in Fintoc's shape). */
class FintocUnreadableAnswer extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`Fintoc answered ${status} with a body that cannot be read`);
    this.name = 'FintocUnreadableAnswer';
    this.status = status;
  }
}

/** Where an error thrown for an answer Fintoc (or what stands at its address) gave keeps that answer's status. */
const answeredStatus: unique symbol = Symbol('fintocAnsweredStatus');
/** Marks the client's axios instance (one per process) once its answers go through this reader. */
const readerAdded: unique symbol = Symbol('fintocAnswerReader');

function withStatus<E extends Error>(error: E, status: number): E {
  Object.defineProperty(error, answeredStatus, { value: status });
  return error;
}

interface AxiosLike {
  [readerAdded]?: true;
  interceptors: {
    response: {
      use(
        onAnswer: (response: { status: number; data: unknown }) => unknown,
        onError: (error: unknown) => unknown,
      ): number;
    };
  };
}

function answeredError(error: unknown): unknown {
  const response = (
    error as { isAxiosError?: boolean; response?: { status: number; data: unknown } }
  ).response;
  if ((error as { isAxiosError?: boolean }).isAxiosError !== true || response === undefined)
    return error; // no answer: the client passes it on as it is (a refused connection, a reset)
  const body = (response.data ?? null) as { error?: { type?: unknown } } | null;
  const fintocShaped =
    typeof body === 'object' && body !== null && typeof body.error?.type === 'string';
  const thrown = fintocShaped
    ? new (getErrorClass(body.error!.type as string) as new (data: unknown) => Error)(body.error)
    : new FintocUnreadableAnswer(response.status);
  return withStatus(thrown, response.status);
}

/** Makes the client's axios instance keep each answer's status and refuse a body it cannot read. */
export function readAnswersOf(client: unknown): void {
  const axios = (client as { client: AxiosLike }).client;
  if (axios[readerAdded] === true) return;
  Object.defineProperty(axios, readerAdded, { value: true });
  axios.interceptors.response.use(
    (response) => {
      if (typeof response.data !== 'object' || response.data === null) {
        throw withStatus(new FintocUnreadableAnswer(response.status), response.status);
      }
      return response;
    },
    (error) => Promise.reject(answeredError(error)),
  );
}

/** The HTTP status Fintoc answered the failed call with; null when no answer came (a timeout, a reset, no route). */
export function fintocAnsweredStatus(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const status = (error as { [answeredStatus]?: unknown })[answeredStatus];
  return typeof status === 'number' ? status : null;
}

/**
 * Fintoc answered and refused the request: a 4xx, so nothing was or will be done under it. A 5xx, no answer, or a
 * body that cannot be read is no refusal: the request may have been applied. Nor is 429, Fintoc asking to be asked
 * later (decision 1245), or 409, Fintoc's answer to a key
 * whose first request is still being processed.
 */
export function fintocRefused(error: unknown): error is Error {
  const status = fintocAnsweredStatus(error);
  return (
    error instanceof Error &&
    status !== null &&
    status >= 400 &&
    status < 500 &&
    status !== 409 &&
    status !== 429
  );
}
