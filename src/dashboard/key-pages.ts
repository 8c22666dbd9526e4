// API keys in the dashboard (decision 540), for developers and above: the account's keys with their scope and
// expiry (a warning while one rotated with a grace period is still working), a new key's tokens shown once, and
// revocation. The same services `cobro keys create|list|revoke` run, scoped to the signed-in account. A key can do
// no more than its maker's role: a developer may not move money, and a `payments` key refunds sales and concedes
// disputes, so a developer makes `read` keys and sees the public token of no wider key (decisions 640, 925).
import { dashboardChange } from './audit.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { createKey, listKeys, revokeKey, type NewKey } from '../modules/accounts/keys.ts';
import { isKeyScope, keyScopes, scopeAllows, type KeyScope } from '../platform/auth/key-scope.ts';
import { field } from './auth-pages.ts';
import { accountOf, dashboardUserOf, formOptions, renderPage } from './render.ts';
import { roleAllows } from './users.ts';

/**
 * The widest scope a key made (or shown) to the signed-in user may have. Both `full` (payouts) and `payments`
 * (refunds, a dispute conceded) move money, an admin's right (decision 925).
 */
function scopeMaxOf(request: FastifyRequest): KeyScope {
  return roleAllows(request.dashboardAccount?.role ?? 'viewer', 'admin') ? 'full' : 'read';
}

const scopeTooWide =
  'Tu rol solo puede crear claves de lectura: las de pagos y las completas mueven dinero (reembolsos, retiros), y eso lo hace un administrador.';

export function registerKeyPages(app: FastifyInstance, ctx: AppContext): void {
  const keysPage = async (
    request: FastifyRequest,
    reply: Parameters<typeof renderPage>[2],
    status: number,
    made: NewKey | null,
    error: string | null,
  ) => {
    const listed = await listKeys(ctx, accountOf(request).id);
    const scopeMax = scopeMaxOf(request);
    // A key wider than the user's role is listed without its public token: on the routes the seed leaves unsigned it
    // is a credential by itself.
    const keys = (listed.ok ? listed.value : []).map((k) =>
      scopeAllows(scopeMax, k.scope) ? k : { ...k, publicToken: '' },
    );
    return renderPage(ctx, request, reply, status, 'keys', {
      scopes: keyScopes.filter((s) => scopeAllows(scopeMax, s)),
      title: 'Claves de API',
      section: 'keys',
      keys,
      expiring: keys.filter((k) => k.state === 'expiring'),
      made,
      error,
      revoked: (request.query as Record<string, unknown>).revoked === '1',
    });
  };
  const developer = { config: { dashboardRole: 'developer' as const } };

  app.get('/keys', developer, async (request, reply) => keysPage(request, reply, 200, null, null));

  app.post('/keys', formOptions(app, 'developer'), async (request, reply) => {
    const name = field(request.body, 'name');
    const scope = field(request.body, 'scope');
    if (isKeyScope(scope) && !scopeAllows(scopeMaxOf(request), scope))
      return keysPage(request, reply, 403, null, scopeTooWide);
    const made = await dashboardChange(
      ctx,
      request,
      (result) => (result.ok ? result.value.id : null),
      (tx: AppContext) =>
        createKey(tx, {
          accountId: accountOf(request).id,
          scope,
          name: name === '' ? undefined : name,
        }),
      (result) => result.ok,
    );
    if (made.ok)
      request.log.info({ keyId: made.value.id, userId: dashboardUserOf(request) }, 'key created');
    return made.ok
      ? keysPage(request, reply, 200, made.value, null)
      : keysPage(request, reply, 400, null, made.error);
  });

  app.post('/keys/revoke', formOptions(app, 'developer'), async (request, reply) => {
    const keyId = field(request.body, 'key_id');
    const revoked = await dashboardChange(
      ctx,
      request,
      keyId,
      (tx) => revokeKey(tx, keyId, accountOf(request).id),
      (result) => result.ok,
    );
    if (!revoked.ok) return keysPage(request, reply, 404, null, revoked.error);
    // Forgotten again once committed (a request before the commit may have kept it: decision 740), and logged.
    ctx.accounts.forgetKept();
    request.log.info({ keyId: revoked.value.id, userId: dashboardUserOf(request) }, 'key revoked');
    return reply.code(303).redirect('/dashboard/keys?revoked=1');
  });
}
