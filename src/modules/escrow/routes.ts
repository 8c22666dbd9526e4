// POST /api/escrow (seed "Escrow Transaction", reference §2.1): Bearer only; the reference's examples and SDK send
// no Sign, and a Sign sent is ignored like on every route that does not require one (supplement §2.2).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import { releaseEscrow, type Released } from './release.ts';
import { EscrowBody, EscrowResponse } from './schemas.ts';

export async function escrowRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/api/escrow',
    {
      config: { ...commandConfig, scope: 'full' },
      schema: {
        tags: ['Escrow'],
        summary: 'Release held sales of an escrow account to its wallet; one answer per id',
        body: EscrowBody,
        response: withErrors({ 200: EscrowResponse }),
      },
    },
    async (request, reply) =>
      runCommand(
        ctx,
        request,
        reply,
        (tx) => releaseEscrow(tx, accountOf(request).id, request.body.transactions),
        { auditTarget: releasedSales },
      ),
  );
}

/**
 * The audit row's object: the sales the answer puts in the wallet (`liquidate`), their ids joined by commas (at most
 * escrowLimits.transactionsMax); null when none is.
 */
function releasedSales(released: Released): string | null {
  if (!('transactions' in released)) return null;
  const ids = released.transactions
    .filter((t) => t.status === 'liquidate')
    .map((t) => t.transaction_id);
  return ids.length === 0 ? null : [...new Set(ids)].join(',');
}
