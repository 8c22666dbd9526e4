// Idempotency-Key on every authenticated POST, PUT and DELETE (supplement §4.5): the first answer is stored for
// 24 h and replayed with `idempotent-replayed: true`; 409 while the first request still runs; 422 when the key
// comes back with another method, path or body. The key is scoped to the account (decision 022). The key is
// claimed and answered by the command runner inside the command's own transaction (decision 071); this plugin
// checks the header early and refuses to register a state-changing route that does not run as a command.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationError } from '../errors/errors.ts';
import { checkKey } from './key-rule.ts';

const idempotencyHeader = 'idempotency-key';
export const replayedHeader = 'idempotent-replayed';
/** The methods whose authenticated requests take an Idempotency-Key (and /api/openapi.json lists 409 and 422 on). */
export const coveredMethods: ReadonlySet<string> = new Set(['POST', 'PUT', 'DELETE']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by routes that change state: their handler runs through `runCommand` (decision 071). */
    command?: boolean;
  }
}

/** The request's Idempotency-Key, null when absent; an empty or overlong key is the client's mistake. */
export function idempotencyKeyOf(request: FastifyRequest): string | null {
  const raw = request.headers[idempotencyHeader];
  if (raw === undefined) return null;
  // Two headers are no key; one is held to the rule an operator's --key obeys too (decision 1155).
  const checked = Array.isArray(raw) ? null : checkKey(raw);
  if (checked === null) throw validationError({ 'Idempotency-Key': 'is empty' });
  if (!checked.ok) throw validationError({ 'Idempotency-Key': checked.problem });
  return checked.key;
}

/** `/api/x` and `/api/x/` are one route, so they are one path here too. */
export function normalisedPath(url: string): string {
  const path = url.split('?')[0] ?? '/';
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

/** Requests whose key the runner claims: authenticated, and a method that changes state. */
export function coversRequest(request: FastifyRequest): boolean {
  return coveredMethods.has(request.method) && request.account !== null;
}

export function registerIdempotency(app: FastifyInstance): void {
  // A state-changing authenticated /api route outside the runner would store its effect without its key: refuse
  // to start rather than find out from a duplicate.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!route.url.startsWith('/api/') || route.config?.auth === 'none') return;
    if (methods.some((m) => coveredMethods.has(m)) && route.config?.command !== true) {
      throw new Error(
        `${methods.join(',')} ${route.url} changes state: declare config.command and answer with runCommand`,
      );
    }
  });
  // A callback hook: no promise per request (decision 250). A throw here reaches Fastify as the hook's error.
  app.addHook('preHandler', (request, _reply, done) => {
    if (coversRequest(request)) idempotencyKeyOf(request);
    done();
  });
}
