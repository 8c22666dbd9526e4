// Bearer token and `Sign` checks (supplement §2), run before validation so a bad credential is a 401, never a 400.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import type { AppContext } from '../context.ts';
import { signedPath, verifySign, type SignParams } from './sign.ts';
import '../http/fastify-types.ts';
import { limits } from '../../limits.ts';

const bearerPattern = new RegExp(`^Bearer\\s+(\\S{1,${limits.bearerTokenLengthMax}})\\s*$`, 'i');

function signParams(request: FastifyRequest): SignParams {
  const source = request.method === 'GET' || request.method === 'HEAD' ? request.query : request.body;
  return source !== null && typeof source === 'object' && !Array.isArray(source) ? (source as SignParams) : {};
}

export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('account', null);
  app.addHook('preValidation', async (request) => {
    // API routes authenticate unless they say otherwise; pages (checkout, /docs) never ask for a token.
    const mode = request.routeOptions.config.auth ?? ((request.routeOptions.url ?? '').startsWith('/api') ? 'token' : 'none');
    // Unknown routes and wrong methods answer 404/405 before anything asks for credentials.
    if (mode === 'none' || request.is404) return;
    const header = request.headers.authorization;
    if (header === undefined || header.trim() === '') throw new ApiError('token_missing', 'waiting token public');
    const match = bearerPattern.exec(header);
    const account = match?.[1] === undefined ? null : await ctx.accounts.authenticatePublicToken(match[1]);
    if (account === null) throw new ApiError('token_invalid', 'invalid token');
    request.account = account;
    if (mode !== 'sign') return;
    const sign = request.headers.sign;
    if (typeof sign !== 'string' || sign.trim() === '') throw new ApiError('sign_missing', 'waiting sign');
    if (!verifySign(account.privateToken, signedPath(request.url), signParams(request), sign.trim())) {
      throw new ApiError('sign_invalid', 'invalid sign');
    }
  });
}

/** The authenticated account of a route that requires one; a route reaching here without one is a bug. */
export function accountOf(request: FastifyRequest): NonNullable<FastifyRequest['account']> {
  if (request.account === null) throw new Error('route requires authentication but none ran');
  return request.account;
}
