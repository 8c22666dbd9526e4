// POST /api/nullification and GET /api/nullification/{id} (seed "Nullification", reference §3). Both signed
// (supplement §2.2).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { notFound } from '../../platform/errors/errors.ts';
import { isStorableText } from '../../platform/http/input-guards.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import { dispatchNullification } from './dispatch.ts';
import { registerNullification, type Registered } from './nullify.ts';
import { findAccountNullification, findNullification } from './repository.ts';
import {
  NullificationBody,
  NullificationGetResponse,
  NullificationIdParams,
  NullificationResponse,
} from './schemas.ts';
import { gatewayResponse, nullifyView } from './views.ts';

const tags = ['Nullification'];
const signed = { auth: 'sign' as const };

export async function refundRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/api/nullification',
    {
      config: { ...commandConfig, ...signed, scope: 'payments' },
      schema: {
        tags,
        summary: 'Refund all or part of a paid transaction',
        body: NullificationBody,
        response: withErrors({ 200: NullificationResponse }),
      },
    },
    async (request, reply) =>
      runCommand(
        ctx,
        request,
        reply,
        (tx) => registerNullification(tx, accountOf(request).id, request.body),
        {
          auditTarget: (registered) => (registered.ok ? registered.nullificationId : null),
          // The processor is a network call: asked after the commit, and the answer shows where the refund stands then.
          afterCommit: async (_ctx, registered: Registered) => {
            if (!registered.ok) return registered.failure;
            await dispatchNullification(ctx, registered.nullificationId);
            const row = await findNullification(ctx.db, registered.nullificationId);
            if (row === undefined)
              throw new Error(`nullification ${registered.nullificationId} vanished`);
            return {
              status: 'success' as const,
              nullify: nullifyView(row),
              gateway_response: gatewayResponse(row),
            };
          },
        },
      ),
  );

  r.get(
    '/api/nullification/:id',
    {
      config: { ...signed, scope: 'read' },
      schema: {
        tags,
        summary: "A refund: by its own id, or a transaction's latest",
        params: NullificationIdParams,
        response: withErrors({ 200: NullificationGetResponse }),
      },
    },
    async (request) => {
      const row = isStorableText(request.params.id)
        ? await findAccountNullification(ctx.db, accountOf(request).id, request.params.id)
        : undefined;
      if (row === undefined) throw notFound('nullification');
      return { nullify: nullifyView(row) };
    },
  );
}
