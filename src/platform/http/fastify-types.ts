import type { AuthenticatedAccount } from '../auth/account-directory.ts';

/**
 * How a route authenticates: none (public), Bearer token, Bearer token plus `Sign`, or Bearer token with a `Sign`
 * checked only when sent ('sign-if-sent': GET /api/mall/{id}, which the reference's cURL and SDK call unsigned).
 */
type RouteAuth = 'none' | 'token' | 'sign' | 'sign-if-sent';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /** A media type the route answers besides JSON (its errors stay JSON), which `Accept` may ask for alone. */
    produces?: string;
  }
  interface FastifyRequest {
    account: AuthenticatedAccount | null;
  }
}
