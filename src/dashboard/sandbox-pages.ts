// Sandbox only: the account's clock, and a form that moves it forward and runs what became due (settlements,
// expiries, payouts, callback retries): the same two steps POST /api/sandbox/clock/advance takes.
import type { FastifyInstance } from 'fastify';
import { dashboardChange } from './audit.ts';
import type { AppContext } from '../platform/context.ts';
import { drainDueWork } from '../platform/work/due-work.ts';
import { limits } from '../limits/index.ts';
import { formatInstant } from './format.ts';
import { accountOf, formOptions, renderPage } from './render.ts';

const msPerHour = 3600 * 1000;

/** Whole days and hours from a form, both optional; null when either is not a whole number from 0. */
function deltaOf(body: unknown): number | null {
  const fields = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const part = (name: string) => {
    const text = typeof fields[name] === 'string' ? (fields[name] as string).trim() : '';
    return text === '' ? 0 : /^\d{1,6}$/.test(text) ? Number(text) : null;
  };
  const days = part('days');
  const hours = part('hours');
  return days === null || hours === null ? null : (days * 24 + hours) * msPerHour;
}

export function registerSandboxPages(app: FastifyInstance, ctx: AppContext): void {
  if (ctx.config.mode !== 'sandbox') return;
  const page = async (
    accountId: string,
    problem: string | null,
    query: Record<string, unknown>,
  ) => ({
    title: 'Reloj de pruebas',
    section: 'sandbox' as const,
    problem,
    now: formatInstant(await ctx.accountClock.now(accountId, ctx.db), ctx.config.timeZone),
    offsetHours: Math.floor((await ctx.accountClock.offsetMs(accountId, ctx.db)) / msPerHour),
    advanced:
      typeof query.advanced === 'string' && /^\d{1,9}$/.test(query.advanced)
        ? Number(query.advanced)
        : null,
    processed:
      typeof query.processed === 'string' && /^\d{1,9}$/.test(query.processed)
        ? Number(query.processed)
        : null,
    maxDays: Math.floor(limits.sandboxAdvanceMsMax / (24 * msPerHour)),
  });

  app.get('/sandbox', async (request, reply) =>
    renderPage(
      ctx,
      request,
      reply,
      200,
      'sandbox',
      await page(accountOf(request).id, null, request.query as Record<string, unknown>),
    ),
  );

  app.post('/sandbox/advance', formOptions(app, 'admin'), async (request, reply) => {
    const account = accountOf(request);
    const deltaMs = deltaOf(request.body);
    const refuse = async (problem: string) =>
      renderPage(ctx, request, reply, 400, 'sandbox', await page(account.id, problem, {}));
    if (deltaMs === null) return refuse('Escribe días y horas como números enteros.');
    if (deltaMs === 0) return refuse('Indica cuántos días u horas adelantar.');
    if (deltaMs > limits.sandboxAdvanceMsMax)
      return refuse(
        `Se puede adelantar a lo más ${Math.floor(limits.sandboxAdvanceMsMax / (24 * msPerHour))} días de una vez.`,
      );
    const offset = await dashboardChange(
      ctx,
      request,
      account.id,
      (tx, db) => tx.accountClock.advance(account.id, deltaMs, db),
      (moved) => moved !== null,
    );
    // As the API's advance: what the clock keeps in memory is read again from what committed.
    ctx.accountClock.forget();
    if (offset === null) return refuse('El reloj de esta cuenta ya no puede adelantarse más.');
    const processed = Object.values(await drainDueWork(ctx, account.id)).reduce((a, b) => a + b, 0);
    return reply
      .code(303)
      .redirect(`/dashboard/sandbox?advanced=${deltaMs / msPerHour}&processed=${processed}`);
  });
}
