// The sandbox's acquirer (decision 530): POST /api/sandbox/disputes opens a chargeback on one of the account's
// paid sales, POST /api/sandbox/disputes/{id}/resolve ends it won or lost. Not registered in production, where the
// operator records what the acquirer reports (cobro disputes open|resolve|import).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import { disputeAnswer } from './answers.ts';
import { findDispute } from './repository.ts';
import { notFound } from '../../platform/errors/errors.ts';
import { openDispute } from './open.ts';
import { resolveDispute } from './resolve.ts';
import {
  DisputeIdParams,
  DisputeResponse,
  SandboxOpenBody,
  SandboxResolveBody,
} from './schemas.ts';

const tags = ['Extensions'];

export async function sandboxDisputeRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  if (ctx.config.mode !== 'sandbox') return;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/api/sandbox/disputes',
    {
      config: { ...commandConfig, scope: 'full' },
      schema: {
        tags,
        summary: "Sandbox: the acquirer opens a chargeback on one of this account's paid sales",
        body: SandboxOpenBody,
        response: withErrors({ 200: DisputeResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, async (tx, db) =>
        disputeAnswer(
          tx,
          await openDispute(tx, db, {
            accountId: accountOf(request).id,
            transactionId: request.body.transaction_id,
            amountMinor: BigInt(request.body.amount),
            reason: request.body.reason,
          }),
        ),
      ),
  );
  r.post(
    '/api/sandbox/disputes/:id/resolve',
    {
      config: { ...commandConfig, scope: 'full' },
      schema: {
        tags,
        summary: "Sandbox: the acquirer decides one of this account's disputes, won or lost",
        params: DisputeIdParams,
        body: SandboxResolveBody,
        response: withErrors({ 200: DisputeResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, async (tx, db) => {
        // The account's own disputes only: the sandbox's acquirer acts for the caller.
        const accountId = accountOf(request).id;
        if ((await findDispute(db, accountId, request.params.id)) === undefined)
          throw notFound('dispute');
        return disputeAnswer(
          tx,
          await resolveDispute(tx, db, {
            accountId,
            id: request.params.id,
            to: request.body.outcome,
          }),
        );
      }),
  );
}
