// Response conventions for every route (supplement §3): JSON envelopes for 404/405/406, request ids, one error
// handler that never leaks internals.
import type {
  FastifyBodyParser,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { ApiError, databaseUnavailable } from '../errors/errors.ts';
import { isDatabaseUnavailable } from '../db/outage.ts';
import { limits } from '../../limits/index.ts';
import { randomHex } from '../ids/ids.ts';
import { fromAjvErrors } from './validation-errors.ts';
import { keepRawBody, parseJsonBody } from './json-body.ts';

const requestIdPattern = new RegExp(`^[\\w.:-]{1,${limits.requestIdLengthMax}}$`);

export function genRequestId(request: {
  headers: Record<string, string | string[] | undefined>;
}): string {
  const incoming = request.headers['x-request-id'];
  if (
    typeof incoming === 'string' &&
    requestIdPattern.test(incoming) &&
    incoming.length <= limits.requestIdLengthMax
  )
    return incoming;
  return `req_${randomHex(12)}`;
}

const otherMethods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

function acceptsJson(accept: string | undefined): boolean {
  // What clients send most, answered without splitting the header.
  if (accept === undefined || accept === 'application/json' || accept === '*/*') return true;
  if (accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const type = (part.split(';')[0] ?? '').trim().toLowerCase();
    return (
      type === '*/*' ||
      type === 'application/*' ||
      type === 'application/json' ||
      type.endsWith('+json')
    );
  });
}

/** Whether `Accept` names the route's own media type (e.g. `text/csv`, or `text/*`). */
function accepts(accept: string | undefined, mediaType: string): boolean {
  const wanted = mediaType.split(';')[0]!.trim().toLowerCase();
  return (accept ?? '').split(',').some((part) => {
    const type = (part.split(';')[0] ?? '').trim().toLowerCase();
    return type === wanted || type === `${wanted.split('/')[0]}/*`;
  });
}

/** A browser's Accept names HTML before any JSON; curl's `*\/*` and API clients get JSON. */
export function wantsHtml(request: FastifyRequest): boolean {
  const types = (request.headers.accept ?? '')
    .split(',')
    .map((part) => (part.split(';')[0] ?? '').trim().toLowerCase());
  const htmlAt = types.findIndex((t) => t === 'text/html' || t === 'application/xhtml+xml');
  const jsonAt = types.indexOf('application/json');
  return htmlAt !== -1 && (jsonAt === -1 || htmlAt < jsonAt);
}

/**
 * The JSON answer to a request no route takes: 405 naming the methods the path has, else 404 `route_not_found`.
 * Also the fallback of a prefix's own not-found handler (the checkout's, for a browser, decision 810).
 */
export function answerNotFound(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const url = request.url.split('?')[0] ?? '/';
  const allowed = otherMethods.filter(
    (m) => m !== request.method && app.findRoute({ method: m, url }) !== null,
  );
  if (allowed.length > 0) {
    reply.header('allow', allowed.join(', '));
    return send(
      reply,
      new ApiError('method_not_allowed', `${request.method} is not allowed on ${url}`),
    );
  }
  return send(reply, new ApiError('route_not_found', `no route ${request.method} ${url}`));
}

function send(reply: FastifyReply, error: ApiError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.httpStatus)
    .type('application/json; charset=utf-8')
    .send(error.envelope());
}

function toApiError(error: FastifyError): ApiError | null {
  if (error instanceof ApiError) return error;
  if (error.validation !== undefined) return fromAjvErrors(error.validation as never);
  switch (error.code) {
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('malformed_body', 'body:is empty', { errors: { body: 'is empty' } });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('malformed_body', 'body:invalid json', {
        errors: { body: 'invalid json' },
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('body_too_large', `body:larger than ${limits.bodyBytesMax} bytes`, {
        errors: { body: 'too large' },
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'body must be application/json');
    default:
      break;
  }
  if (error instanceof SyntaxError && /JSON/.test(error.message)) {
    return new ApiError('malformed_body', 'body:invalid json', {
      errors: { body: 'invalid json' },
    });
  }
  // Before the status check: a driver's error may carry a code Fastify would read as a status.
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('malformed_body', 'request:invalid', { errors: { request: 'invalid' } });
  }
  return null;
}

/** Methods whose requests carry no body: clients still send `Content-Type: application/json` on them (seed "Endpoints"). */
const bodilessMethods: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * HSTS for a service published on https (decision 440): a browser that once reached it goes on using https there,
 * so a dashboard session cookie never travels in clear. A year, the usual preload floor; subdomains are the
 * operator's to add, as they may serve something else.
 */
export const hstsValue = `max-age=${limits.hstsMaxAgeS}`;

/** The JSON body parser, for `application/json` and for JSON under a `+json` suffix. */
function registerJsonParsers(app: FastifyInstance): void {
  // The seed's common headers include `Content-Type: application/json` on every request, so a DELETE (or a GET)
  // sent that way with no body is a request without a body, not an empty JSON document.
  // Fastify's default checks, plus each number's source text for the input guards (decision 072).
  const parseJson = parseJsonBody;
  app.removeContentTypeParser('application/json');
  // Fastify reads `text/plain` too; a JSON body sent so (fetch's default for a string) would then fail validation as
  // `body:invalid`. Without the parser it is 415, "body must be application/json", as docs/errors.md says (decision 895).
  app.removeContentTypeParser('text/plain');
  const jsonParser: FastifyBodyParser<string> = (request, body, done) => {
    keepRawBody(request, body);
    if (body === '' && bodilessMethods.has(request.method)) {
      done(null, undefined);
      return;
    }
    parseJson(request, body, done);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonParser);
  // JSON under a structured-syntax suffix (`application/vnd.api+json`, RFC 6839) is JSON, as Laravel, the
  // reference's framework, reads it (decision 755).
  app.addContentTypeParser(
    /^application\/[\w.-]+\+json\s*(?:;|$)/i,
    { parseAs: 'string' },
    jsonParser,
  );
}

export function registerConventions(
  app: FastifyInstance,
  options: { readonly httpsBase: boolean } = { httpsBase: false },
): void {
  const hsts = options.httpsBase;
  registerJsonParsers(app);

  // Callback hooks rather than async ones on every request (here, the input guards, the idempotency check and the
  // metrics): an async hook costs a promise and a turn of the microtask queue each (decision 250).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (hsts) reply.header('strict-transport-security', hstsValue);
    // The route's options only when JSON is not acceptable: `routeOptions` builds an object on every read.
    if (request.url.startsWith('/api') && !acceptsJson(request.headers.accept)) {
      const produces = request.routeOptions.config?.produces;
      if (!(produces !== undefined && accepts(request.headers.accept, produces))) {
        done(new ApiError('not_acceptable', 'this API answers application/json only'));
        return;
      }
    }
    done();
  });

  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) =>
    answerNotFound(app, request, reply),
  );

  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    const mapped = toApiError(error);
    if (mapped !== null) {
      // An outage is one line per request, not a stack each: the database's own state is what to look at.
      if (mapped.code === 'unavailable')
        request.log.warn({ reason: error.message }, 'database unavailable');
      else if (mapped.httpStatus >= 500) request.log.error({ err: error }, 'request failed');
      return send(reply, mapped);
    }
    request.log.error({ err: error }, 'unexpected error');
    return send(reply, new ApiError('internal', 'internal error', { request_id: request.id }));
  });
}
