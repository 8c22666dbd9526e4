// The merchant's disputes (chargebacks) with the deadline to answer each, and the account's audit trail: who
// changed what, when (decisions 530, 531). Read-only pages: a dispute is answered through the API.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { listAudit } from '../platform/audit/list.ts';
import { countDisputes, listDisputes } from '../modules/disputes/repository.ts';
import { auditLimits, dashboardLimits } from '../limits/index.ts';
import { pageNumberOf } from './format.ts';
import { accountOf, queryOf, renderPage } from './render.ts';

export const disputeStatusLabels: Readonly<Record<string, string>> = {
  needs_response: 'Espera tu respuesta',
  under_review: 'En revisión',
  won: 'Ganada',
  lost: 'Perdida',
  accepted: 'Aceptada',
};

export function registerDisputePages(app: FastifyInstance, ctx: AppContext): void {
  app.get('/disputes', async (request, reply) => {
    const account = accountOf(request);
    const query = request.query as Record<string, unknown>;
    const page = pageNumberOf(query.page, dashboardLimits.pageNumberMax);
    const perPage = dashboardLimits.rowsPerPage;
    const [rows, total, now] = await Promise.all([
      listDisputes(ctx.db, account.id, { offset: (page - 1) * perPage, limit: perPage }),
      countDisputes(ctx.db, account.id),
      ctx.accountClock.now(account.id, ctx.db),
    ]);
    const link = (p: number) => queryOf({ page: p > 1 ? p : null });
    return renderPage(ctx, request, reply, 200, 'disputes', {
      title: 'Contracargos',
      section: 'disputes',
      rows: rows.map((r) => ({
        ...r,
        open: r.status === 'needs_response' || r.status === 'under_review',
        late: r.status === 'needs_response' && r.respond_by.getTime() < now.getTime(),
        statusLabel: disputeStatusLabels[r.status] ?? r.status,
      })),
      total,
      page,
      previous: page > 1 ? link(page - 1) : null,
      next: page * perPage < total ? link(page + 1) : null,
    });
  });

  app.get('/audit', async (request, reply) => {
    const account = accountOf(request);
    const rows = await listAudit(ctx.db, account.id, auditLimits.listRowsMax, ctx.config.timeZone);
    return renderPage(ctx, request, reply, 200, 'audit', {
      title: 'Registro de cambios',
      section: 'audit',
      rows,
      shownMax: auditLimits.listRowsMax,
    });
  });
}
