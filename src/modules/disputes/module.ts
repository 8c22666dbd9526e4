// The disputes group (issue 36, decision 530): chargebacks held in the ledger until the acquirer decides; the
// merchant's routes, and the sandbox's acquirer.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../platform/context.ts';
import type { AppModule } from '../../platform/module.ts';
import { disputeAnswerRoutes, disputeReadRoutes } from './routes.ts';
import { sandboxDisputeRoutes } from './sandbox-routes.ts';

async function routes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await disputeReadRoutes(app, ctx);
  await disputeAnswerRoutes(app, ctx);
  await sandboxDisputeRoutes(app, ctx);
}

export const disputesModule: AppModule = { name: 'disputes', routes, dueWork: [] };
