// GET /api/account (extension): tells a merchant which account its credentials belong to. Signed, so a
// developer can check both the token and their Sign implementation with one call.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { ErrorEnvelope } from '../../platform/http/schemas.ts';
import { AccountResponse } from './schemas.ts';

export async function accountRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.get(
    '/api/account',
    {
      config: { auth: 'sign', scope: 'read' },
      schema: {
        tags: ['Extensions'],
        summary: 'The account the credentials belong to (checks token and Sign)',
        response: { 200: AccountResponse, 401: ErrorEnvelope },
      },
    },
    async (request) => {
      const account = accountOf(request);
      return {
        status: 'success' as const,
        id: account.id,
        name: account.name,
        mode: ctx.config.mode,
      };
    },
  );
}
