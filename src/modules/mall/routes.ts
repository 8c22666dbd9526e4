// HTTP surface of the mall (reference §5): POST /api/mall and GET /api/mall/{id}: the create signed, the read
// with Bearer alone (a Sign, when sent, is checked; supplement §2.2).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import { createMall, storeTransactionsOf } from './mall-create.ts';
import { mallBodyAsRead } from './mall-input.ts';
import { mallView } from './mall-query.ts';
import { MallCreateBody, MallCreateResponse, MallParams, MallView } from './schemas.ts';

const tags = ['Mall'];

export async function mallRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/api/mall',
    {
      config: { ...commandConfig, auth: 'sign' as const, scope: 'payments' },
      schema: {
        tags,
        summary: 'One payment for several stores: each store gets its own transaction',
        body: MallCreateBody,
        response: withErrors({ 200: MallCreateResponse }),
      },
    },
    async (request, reply) =>
      runCommand(
        ctx,
        request,
        reply,
        async (tx) => {
          const account = accountOf(request);
          return createMall(tx, { id: account.id, name: account.name }, request.body);
        },
        // Each store's new transaction is in its store's chain too (decision 920), not only the mall in the caller's.
        // The tuples are read by hand: hashed as read, so a retry that writes them another way replays (decision 940).
        { auditOthers: storeTransactionsOf, bodyAsRead: () => mallBodyAsRead(request.body) },
      ),
  );

  // Bearer alone, as the reference's cURL example and its SDK call it; a Sign sent anyway is checked (supplement §2.2).
  r.get(
    '/api/mall/:id',
    {
      config: { auth: 'sign-if-sent' as const, scope: 'read' },
      schema: {
        tags,
        summary: "One mall with its payment and each store's line",
        params: MallParams,
        response: withErrors({ 200: MallView }),
      },
    },
    async (request) => mallView(ctx, accountOf(request).id, request.params.id),
  );
}
