import type { AuthenticatedAccount } from '../auth/account-directory.ts';

/** How a route authenticates: none (public), Bearer token, or Bearer token plus `Sign`. */
export type RouteAuth = 'none' | 'token' | 'sign';

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
