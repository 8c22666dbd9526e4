// Callbacks sent to the merchant: a list by state, one callback with its payload and every delivery attempt, and a
// resend button that runs the very service `cobro notifications retry` and POST /api/notifications/{id}/retry run,
// scoped to the signed-in account. A resend answers with a redirect (post/redirect/get), so reloading the page
// never sends it again.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { notificationStatuses, type NotificationStatus } from '../platform/notifications/types.ts';
import {
  listNotifications,
  retryNotification,
  showNotification,
} from '../modules/notifications/service.ts';
import { dashboardLimits } from '../limits/index.ts';
import { dashboardChange } from './audit.ts';
import { pageNumberOf } from './format.ts';
import { accountOf, formOptions, queryOf, renderMessage, renderPage } from './render.ts';

const resendNotices: Readonly<
  Record<string, { readonly kind: 'notice' | 'error'; readonly text: string }>
> = {
  ok: {
    kind: 'notice',
    text: 'Listo: la notificación se enviará de nuevo en unos segundos, con el mismo webhook-id.',
  },
  busy: {
    kind: 'error',
    text: 'La notificación se está enviando en este momento; espera su resultado antes de reenviarla.',
  },
};

function statusOf(value: unknown): NotificationStatus | null {
  return typeof value === 'string' && (notificationStatuses as readonly string[]).includes(value)
    ? (value as NotificationStatus)
    : null;
}

export function registerCallbackPages(app: FastifyInstance, ctx: AppContext): void {
  app.get('/callbacks', async (request, reply) => {
    const account = accountOf(request);
    const query = request.query as Record<string, unknown>;
    const status = statusOf(query.status);
    const page = pageNumberOf(query.page, dashboardLimits.pageNumberMax);
    const perPage = dashboardLimits.rowsPerPage;
    const found = await listNotifications(ctx, {
      accountId: account.id,
      ...(status === null ? {} : { status }),
      offset: (page - 1) * perPage,
      limit: perPage,
    });
    const link = (p: number) => queryOf({ status, page: p > 1 ? p : null });
    return renderPage(ctx, request, reply, 200, 'callbacks', {
      title: 'Notificaciones',
      section: 'callbacks',
      status,
      statuses: notificationStatuses,
      rows: found.notifications,
      total: found.total,
      page,
      unknownStatus: typeof query.status === 'string' && query.status !== '' && status === null,
      previous: page > 1 ? link(page - 1) : null,
      next: page * perPage < found.total ? link(page + 1) : null,
      retentionDays: ctx.config.callbackRetentionDays,
    });
  });

  app.get('/callbacks/:id', async (request, reply) => {
    const account = accountOf(request);
    const { id } = request.params as { id: string };
    const found = await showNotification(ctx, id, account.id);
    if (found === null)
      return renderMessage(
        ctx,
        request,
        reply,
        404,
        'No encontrado',
        'La página que buscas no existe o no pertenece a tu cuenta.',
      );
    const resent = (request.query as Record<string, unknown>).resent;
    return renderPage(ctx, request, reply, 200, 'callback', {
      title: `Notificación ${found.event_type}`,
      section: 'callbacks',
      cb: found,
      payload: JSON.stringify(found.payload, null, 2),
      notice: typeof resent === 'string' ? (resendNotices[resent] ?? null) : null,
    });
  });

  app.post('/callbacks/:id/resend', formOptions(app, 'developer'), (request, reply) =>
    resend(ctx, request, reply),
  );
}

/** The resend form: the retry and its audit row in one commit (decision 531), then back to the callback. */
async function resend(ctx: AppContext, request: FastifyRequest, reply: FastifyReply) {
  const account = accountOf(request);
  const { id } = request.params as { id: string };
  const retried = await dashboardChange(
    ctx,
    request,
    id,
    (tx) => retryNotification(tx, id, account.id),
    (done) => done !== null && !('message_error' in done),
  );
  if (retried === null)
    return renderMessage(
      ctx,
      request,
      reply,
      404,
      'No encontrado',
      'La página que buscas no existe o no pertenece a tu cuenta.',
    );
  const outcome = 'message_error' in retried ? 'busy' : 'ok';
  return reply
    .code(303)
    .redirect(`/dashboard/callbacks/${encodeURIComponent(id)}?resent=${outcome}`);
}
