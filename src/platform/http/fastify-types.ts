import type { AuthenticatedAccount } from '../auth/account-directory.ts';
import type { KeyScope } from '../auth/key-scope.ts';

/**
 * How a route authenticates: none (public), Bearer token, Bearer token plus `Sign`, or Bearer token with a `Sign`
 * checked only when sent ('sign-if-sent': GET /api/mall/{id}, which the reference's cURL and SDK call unsigned).
 */
type RouteAuth = 'none' | 'token' | 'sign' | 'sign-if-sent';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
    /**
     * The least key scope that may call the route (decision 540): `read`, `payments` or `full`. Every route that
     * authenticates names one (test/platform/auth/key-scopes.test.ts); one that does not is treated as `full`.
     */
    scope?: KeyScope;
    /** A media type the route answers besides JSON (its errors stay JSON), which `Accept` may ask for alone. */
    produces?: string;
  }
  interface FastifyRequest {
    account: AuthenticatedAccount | null;
  }
}
