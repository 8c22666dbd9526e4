// Idempotency-Key on every authenticated POST, PUT and DELETE (supplement §4.5): the first answer is stored for
// 24 h and replayed with `idempotent-replayed: true`; 409 while the first request still runs; 422 when the key
// comes back with another method, path or body. The key is scoped to the account (decision 022).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ApiError, validationError } from '../errors.ts';
import { limits } from '../../limits.ts';
import { requestHash } from './canonical.ts';
import { claimKey, completeKey, releaseKey } from './store.ts';

export const idempotencyHeader = 'idempotency-key';
export const replayedHeader = 'idempotent-replayed';
const coveredMethods: ReadonlySet<string> = new Set(['POST', 'PUT', 'DELETE']);

interface Claimed {
  readonly accountId: string;
  readonly key: string;
}

/** Requests this process claimed a key for; filled in preHandler, settled in onSend. */
const claims = new WeakMap<FastifyRequest, Claimed>();

function keyOf(request: FastifyRequest): string | null {
  const raw = request.headers[idempotencyHeader];
  if (raw === undefined) return null;
  const key = Array.isArray(raw) ? null : raw.trim();
  if (key === null || key === '') throw validationError({ 'Idempotency-Key': 'is empty' });
  if (key.length > limits.idempotencyKeyLengthMax) throw validationError({ 'Idempotency-Key': 'too long' });
  return key;
}

/** `/api/x` and `/api/x/` are one route, so they are one path here too. */
function normalisedPath(url: string): string {
  const path = url.split('?')[0] ?? '/';
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

export function registerIdempotency(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('preHandler', async (request, reply) => {
    if (!coveredMethods.has(request.method) || request.account === null) return;
    const key = keyOf(request);
    if (key === null) return;
    const accountId = request.account.id;
    const claim = await claimKey(ctx.db, {
      accountId, key, method: request.method, path: normalisedPath(request.url),
      requestHash: requestHash(request.body), now: ctx.clock.now(),
    });
    switch (claim.kind) {
      case 'proceed':
        claims.set(request, { accountId, key });
        return;
      case 'in_flight':
        throw new ApiError('idempotency_in_flight', 'a request with this Idempotency-Key is still being processed; retry later');
      case 'mismatch':
        throw new ApiError('idempotency_mismatch', 'this Idempotency-Key was already used with other parameters');
      case 'replay':
        return reply.code(claim.statusCode).header('content-type', claim.contentType).header(replayedHeader, 'true').send(claim.body);
      default: {
        const never: never = claim;
        throw new Error(`unknown claim ${String(never)}`);
      }
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claimed = claims.get(request);
    if (claimed === undefined) return payload;
    claims.delete(request);
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await releaseKey(ctx.db, claimed.accountId, claimed.key);
      return payload;
    }
    const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
    await completeKey(ctx.db, claimed.accountId, claimed.key, { statusCode: reply.statusCode, contentType, body: payload });
    return payload;
  });
}
