// Bearer token and `Sign` checks (supplement §2), run before validation so a bad credential is a 401, never a 400.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/errors.ts';
import type { AppContext } from '../context.ts';
import { signedPaths, verifySign, type SignParams } from './sign.ts';
import { checkCobroSignature, cobroSignatureHeader, rawPathOf } from './cobro-signature.ts';
import type { AuthenticatedAccount } from './account-directory.ts';
import { rawBodyOf } from '../http/json-body.ts';
import '../http/fastify-types.ts';
import { limits } from '../../limits/index.ts';
import { scopeAllows } from './key-scope.ts';

const bearerPattern = new RegExp(`^Bearer\\s+(\\S{1,${limits.bearerTokenLengthMax}})\\s*$`, 'i');

function signParams(request: FastifyRequest): SignParams {
  const source =
    request.method === 'GET' || request.method === 'HEAD' ? request.query : request.body;
  return source !== null && typeof source === 'object' && !Array.isArray(source)
    ? (source as SignParams)
    : {};
}

/**
 * Cobro-Signature (decision 140): checked whenever it is sent, required when the account asks for strict signing.
 * It adds to `Sign`, never replaces it: a signed endpoint still needs `Sign`, as the seed says.
 */
function checkStrictSignature(
  ctx: AppContext,
  request: FastifyRequest,
  account: AuthenticatedAccount,
): void {
  const header = request.headers[cobroSignatureHeader];
  if (header === undefined || (typeof header === 'string' && header.trim() === '')) {
    if (account.strictSigning) throw new ApiError('signature_missing', 'waiting Cobro-Signature');
    return;
  }
  if (typeof header !== 'string')
    throw new ApiError('signature_invalid', 'invalid Cobro-Signature');
  const signed = {
    method: request.method,
    rawPath: rawPathOf(request.url),
    rawBody: rawBodyOf(request),
  };
  switch (checkCobroSignature(account.privateToken, header.trim(), signed, ctx.clock.now())) {
    case 'valid':
      return;
    case 'invalid':
      throw new ApiError('signature_invalid', 'invalid Cobro-Signature');
    case 'expired':
      throw new ApiError(
        'signature_expired',
        `Cobro-Signature timestamp is more than ${limits.cobroSignatureToleranceMs / 1000} seconds from the service clock`,
      );
  }
}

export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('account', null);
  app.addHook('preValidation', async (request) => {
    // API routes authenticate unless they say otherwise; pages (checkout, /docs) never ask for a token.
    // `routeOptions` is a getter that builds a new object on each read: read once (decision 250).
    const route = request.routeOptions;
    const mode = route.config.auth ?? ((route.url ?? '').startsWith('/api') ? 'token' : 'none');
    // Unknown routes and wrong methods answer 404/405 before anything asks for credentials.
    if (mode === 'none' || request.is404) return;
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '')
      throw new ApiError('token_missing', 'waiting token public');
    const match = bearerPattern.exec(header);
    const account =
      match?.[1] === undefined ? null : await ctx.accounts.authenticatePublicToken(match[1]);
    if (account === null) throw new ApiError('token_invalid', 'invalid token');
    request.account = account;
    // The seed's answers first (a wrong key is `invalid sign`), then the Cobro-Signature.
    if (mode === 'sign' || mode === 'sign-if-sent') {
      const sign = request.headers.sign;
      const absent = typeof sign !== 'string' || sign.trim() === '';
      if (absent && mode === 'sign') throw new ApiError('sign_missing', 'waiting sign');
      if (
        !absent &&
        !verifySign(account.signingKey, signedPaths(request.url), signParams(request), sign.trim())
      ) {
        throw new ApiError('sign_invalid', 'invalid sign');
      }
    }
    checkStrictSignature(ctx, request, account);
    // Authorization after authentication: a key outside its scope is refused before any handler writes anything.
    const needed = route.config.scope ?? 'full';
    if (!scopeAllows(account.scope, needed))
      throw new ApiError(
        'forbidden',
        `this key's scope is ${account.scope}: this call needs a ${needed} key`,
      );
  });
}

/** The authenticated account of a route that requires one; a route reaching here without one is a bug. */
export function accountOf(request: FastifyRequest): NonNullable<FastifyRequest['account']> {
  if (request.account === null) throw new Error('route requires authentication but none ran');
  return request.account;
}

/**
 * The id of the API key a request authenticated with (`primary` for the account's own pair), or null on a route
 * that does not authenticate: the actor of an API change (issue 36's audit trail).
 */
export function keyIdOf(request: FastifyRequest): string | null {
  return request.account?.keyId ?? null;
}
