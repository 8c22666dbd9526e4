// HTTP surface of conciliation: POST /api/conciliation (seed "Conciliation"). It only reads, but it is a POST, so
// it runs as a command like every POST (its Idempotency-Key, when sent, replays the first answer).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import { accountNow } from '../../platform/sandbox-clock.ts';
import { formatDate } from '../../platform/time-format.ts';
import { conciliationRange } from './date-range.ts';
import { conciliationReport } from './report.ts';
import { ConciliationBody, ConciliationResponse } from './schemas.ts';

const tags = ['Conciliation'];

export async function conciliationRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post('/api/conciliation', {
    config: commandConfig,
    schema: {
      tags, summary: 'Settlement batches of a date range (at most 30 days) with the transactions each settled',
      body: ConciliationBody, response: withErrors({ 200: ConciliationResponse }),
    },
  }, async (request, reply) => runCommand(ctx, request, reply, async (tx) => {
    const accountId = accountOf(request).id;
    const today = formatDate(await accountNow(tx, accountId, tx.db), ctx.config.timeZone);
    const range = conciliationRange(request.body.date_init, request.body.date_end, today, ctx.config.timeZone);
    return { status: 'success' as const, conciliation: await conciliationReport(tx, tx.db, accountId, range) };
  }));
}
