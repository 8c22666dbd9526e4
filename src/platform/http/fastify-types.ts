import type { AuthenticatedAccount } from '../auth/account-directory.ts';

/** How a route authenticates: none (public), Bearer token, or Bearer token plus `Sign`. */
export type RouteAuth = 'none' | 'token' | 'sign';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    account: AuthenticatedAccount | null;
  }
}
