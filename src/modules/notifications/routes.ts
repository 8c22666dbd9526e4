// GET /api/notifications, GET /api/notifications/{id}, POST /api/notifications/{id}/retry (extensions):
// a merchant's view of its callback deliveries and a way to resend one. See docs/callbacks.md.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../platform/context.ts';
import { accountOf } from '../../platform/auth/auth-plugin.ts';
import { notFound, validationError } from '../../platform/errors/errors.ts';
import type { TypedRouter } from '../../platform/http/typed-router.ts';
import { commandConfig, runCommand } from '../../platform/commands/runner.ts';
import { IdParams, ListQuery, ListResponse, RetryResponse, ShowResponse } from './schemas.ts';
import { listNotifications, retryNotification, showNotification } from './service.ts';
import { createdRange } from './date-range.ts';

export async function notificationRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  registerNotificationReads(r, ctx);
  registerNotificationRetry(r, ctx);
}

/** GET /api/notifications and /api/notifications/{id}: the deliveries, listed and one by one. */
function registerNotificationReads(r: TypedRouter, ctx: AppContext): void {
  r.get(
    '/api/notifications',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['Extensions'],
        summary: "List this account's callback deliveries, newest first",
        querystring: ListQuery,
        response: ListResponse,
      },
    },
    async (request) => {
      const q = request.query;
      const range = createdRange(q.date_init, q.date_end, ctx.config.timeZone);
      if (!range.ok) throw validationError(range.errors);
      const page = await listNotifications(ctx, {
        accountId: accountOf(request).id,
        ...(q.status !== undefined ? { status: q.status } : {}),
        ...range.value,
        offset: (q.page - 1) * q.per_page,
        limit: q.per_page,
      });
      return {
        status: 'success' as const,
        page: q.page,
        per_page: q.per_page,
        total: page.total,
        notifications: [...page.notifications],
      };
    },
  );

  r.get(
    '/api/notifications/:id',
    {
      config: { scope: 'read' },
      schema: {
        tags: ['Extensions'],
        summary: 'One callback delivery with its payload and every attempt',
        params: IdParams,
        response: ShowResponse,
      },
    },
    async (request) => {
      const found = await showNotification(ctx, request.params.id, accountOf(request).id);
      if (found === null) throw notFound('notification');
      return {
        status: 'success' as const,
        notification: { ...found, attempts_log: [...found.attempts_log] },
      };
    },
  );
}

/** POST /api/notifications/{id}/retry: a delivery sent again now. */
function registerNotificationRetry(r: TypedRouter, ctx: AppContext): void {
  r.post(
    '/api/notifications/:id/retry',
    {
      config: { ...commandConfig, scope: 'full' },
      schema: {
        tags: ['Extensions'],
        summary:
          'Send a callback again now (same webhook-id); a failed or delivered one starts a fresh retry schedule',
        params: IdParams,
        response: RetryResponse,
      },
    },
    async (request, reply) =>
      runCommand(ctx, request, reply, async (tx) => {
        const retried = await retryNotification(tx, request.params.id, accountOf(request).id);
        if (retried === null) throw notFound('notification');
        if ('message_error' in retried) return retried;
        return { status: 'success' as const, notification: retried };
      }),
  );
}
