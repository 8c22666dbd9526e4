// HTTP surface of conciliation: POST /api/conciliation (seed "Conciliation") and GET /api/conciliation.csv (Cobro's
// own, decision 121). The POST only reads, but it is a POST, so it runs as a command like every POST (its
// Idempotency-Key, when sent, replays the first answer).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { withErrors } from '../../platform/http/schemas.ts';
import { conciliationCsv, csvFileName, csvMediaType } from './csv.ts';
import { conciliationFor } from './report.ts';
import { ConciliationBody, ConciliationCsv, ConciliationResponse } from './schemas.ts';

export async function conciliationRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/api/conciliation',
    {
      config: { ...commandConfig, scope: 'read' },
      schema: {
        tags: ['Conciliation'],
        summary:
          'Settlement batches of a date range (at most 30 days) with the transactions each settled',
        body: ConciliationBody,
        response: withErrors({ 200: ConciliationResponse }),
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, async (tx) => {
        const { batches } = await conciliationFor(
          tx,
          accountOf(request).id,
          request.body.date_init,
          request.body.date_end,
        );
        return { status: 'success' as const, conciliation: batches };
      }),
  );

  r.get(
    '/api/conciliation.csv',
    {
      config: { produces: csvMediaType, scope: 'read' },
      schema: {
        tags: ['Extensions'],
        summary:
          'The conciliation report as CSV: one row per settled transaction, UTF-8 with BOM, `;` between fields',
        querystring: ConciliationBody,
        response: {
          ...withErrors({}),
          200: {
            description: 'The report as CSV',
            content: { 'text/csv': { schema: ConciliationCsv } },
          },
        },
      },
    },
    async (request, reply) => {
      const { range, batches } = await conciliationFor(
        ctx,
        accountOf(request).id,
        request.query.date_init,
        request.query.date_end,
      );
      return reply
        .type(csvMediaType)
        .header(
          'content-disposition',
          `attachment; filename="${csvFileName(range.dateInit, range.dateEnd)}"`,
        )
        .send(conciliationCsv(batches));
    },
  );
}
