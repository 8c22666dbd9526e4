// Subscriptions and plans (issue 10): the account's subscriptions with their state, plan, client, next charge and
// last payment, filtered by state; one subscription with its billing cycles, payments and status log; the plans
// with their pricing and how many subscriptions each has. Read through the same services as `cobro subscriptions`
// and GET /api/suplan/plans, scoped to the signed-in account: another account's subscription is the same 404.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { subscriptionStatuses, type SubscriptionStatus } from '../modules/subscriptions/states.ts';
import {
  listSubscriptionSummaries,
  subscriptionDetail,
} from '../modules/subscriptions/summaries.ts';
import { getPlans } from '../modules/subscriptions/plan-service.ts';
import { findPlan } from '../modules/subscriptions/repository.ts';
import { dashboardLimits } from '../limits/index.ts';
import { oneclickSummary } from '../platform/processors/oneclick-settings.ts';
import { pageNumberOf } from './format.ts';
import { accountOf, queryOf, renderMessage, renderPage } from './render.ts';

function statusOf(value: unknown): SubscriptionStatus | null {
  return typeof value === 'string' && (subscriptionStatuses as readonly string[]).includes(value)
    ? (value as SubscriptionStatus)
    : null;
}

/** Production charges stored cards through the account's Oneclick Mall only (issue 33): shown, never edited. */
async function oneclickPanel(ctx: AppContext, accountId: string) {
  if (ctx.config.mode !== 'production') return null;
  return { settings: await oneclickSummary(ctx.db, accountId) };
}

export function registerSubscriptionPages(app: FastifyInstance, ctx: AppContext): void {
  app.get('/subscriptions', async (request, reply) => {
    const account = accountOf(request);
    const query = request.query as Record<string, unknown>;
    const status = statusOf(query.status);
    // Only one of the account's own plans narrows the list (a plans page link); anything else is ignored.
    const plan =
      typeof query.plan === 'string'
        ? ((await findPlan(ctx.db, account.id, query.plan)) ?? null)
        : null;
    const page = pageNumberOf(query.page, dashboardLimits.pageNumberMax);
    const perPage = dashboardLimits.rowsPerPage;
    const found = await listSubscriptionSummaries(ctx, {
      accountId: account.id,
      ...(status === null ? {} : { status }),
      ...(plan === null ? {} : { planId: plan.id }),
      offset: (page - 1) * perPage,
      limit: perPage,
    });
    const link = (p: number) => queryOf({ status, plan: plan?.id ?? null, page: p > 1 ? p : null });
    return renderPage(ctx, request, reply, 200, 'subscriptions', {
      title: 'Suscripciones',
      section: 'subscriptions',
      status,
      plan,
      statuses: subscriptionStatuses,
      rows: found.subscriptions,
      total: found.total,
      page,
      unknownStatus: typeof query.status === 'string' && query.status !== '' && status === null,
      previous: page > 1 ? link(page - 1) : null,
      next: page * perPage < found.total ? link(page + 1) : null,
      oneclick: await oneclickPanel(ctx, account.id),
    });
  });

  app.get('/subscriptions/:id', async (request, reply) => {
    const account = accountOf(request);
    const { id } = request.params as { id: string };
    const found = await subscriptionDetail(ctx, account.id, id);
    if (found === null)
      return renderMessage(
        ctx,
        request,
        reply,
        404,
        'No encontrado',
        'La página que buscas no existe o no pertenece a tu cuenta.',
      );
    return renderPage(ctx, request, reply, 200, 'subscription', {
      title: `Suscripción de ${found.client.name}`,
      section: 'subscriptions',
      sub: found,
      logs: [...found.logs.status].reverse(),
    });
  });

  app.get('/plans', async (request, reply) => {
    const account = accountOf(request);
    const { plans } = await getPlans(ctx, account.id);
    return renderPage(ctx, request, reply, 200, 'plans', {
      title: 'Planes',
      section: 'plans',
      plans,
    });
  });
}
