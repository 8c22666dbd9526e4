import type { AuthenticatedAccount } from '../../modules/accounts/service.ts';

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
