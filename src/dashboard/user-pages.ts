// Dashboard users (decision 541): the invitation link's page, where an invited user sets a password; the owner's
// users page (invite, list, turn token sign-in off); a user's own second factor. Each route names its least role.
import { dashboardChange, invitedUserChange } from './audit.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { field, setSessionCookie } from './auth-pages.ts';
import { countUserSignIn, signInLimit } from './sign-in-tries.ts';
import { setDeviceCookie } from './device-cookie.ts';
import { accountOf, formOptions, renderMessage, renderPage } from './render.ts';
import { hashPassword } from './passwords.ts';
import { signInUser } from './session.ts';
import {
  acceptInvitation,
  dashboardRoles,
  invitationOf,
  inviteUser,
  listUsers,
  passwordProblem,
  type Invitation,
  type Result,
} from './users.ts';
import { setTokenSignIn } from './token-sign-in.ts';
import { newTotpSecret, totpUri } from './totp.ts';
import { enrolTotp, hasTotp } from './user-totp.ts';

const base32Secret = /^[A-Z2-7]{32}$/;

/** The invitation link's page: an invited user sets a password there and is signed in. */
function registerInvitePages(app: FastifyInstance, ctx: AppContext, secure: boolean): void {
  const invitePage = async (
    request: FastifyRequest,
    reply: Parameters<typeof renderPage>[2],
    token: string,
    status: number,
    error: string | null,
  ) => {
    const invitation = await invitationOf(ctx, token);
    if (invitation === null)
      return renderMessage(
        ctx,
        request,
        reply,
        404,
        'Invitación no válida',
        'Este enlace ya se usó o venció. Pide una nueva invitación a quien administra la cuenta.',
      );
    return renderPage(ctx, request, reply, status, 'invite', {
      title: 'Crear contraseña',
      email: invitation.email,
      token,
      error,
    });
  };

  app.get('/invite', { config: { dashboardPublic: true } }, async (request, reply) =>
    invitePage(request, reply, field(request.query, 'token'), 200, null),
  );

  app.post(
    '/invite',
    { config: { dashboardPublic: true, rateLimit: signInLimit }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const token = field(request.body, 'token');
      const password = field(request.body, 'password');
      const problem =
        passwordProblem(password) ??
        (password === field(request.body, 'password_again')
          ? null
          : 'Las dos contraseñas no coinciden.');
      if (problem !== null) return invitePage(request, reply, token, 400, problem);
      // Hashed before the transaction opens: the hash's deliberate cost holds no connection.
      const passwordHash = await hashPassword(password, ctx.config.passwordHashCost);
      const user = await invitedUserChange(ctx, request, (tx) =>
        acceptInvitation(tx, token, passwordHash),
      );
      if (user === null) return invitePage(request, reply, token, 404, null);
      setSessionCookie(reply, await signInUser(ctx, user), secure);
      // The invitation's token and the new password are a sign-in too: this browser is the user's (decision 1185).
      await setDeviceCookie(ctx, reply, user.userId, secure);
      return reply.code(303).redirect('/dashboard');
    },
  );
}

/** The owner's page: users and their roles, invitations, token sign-in on or off. */
function registerUsersPage(app: FastifyInstance, ctx: AppContext): void {
  const usersPage = async (
    request: FastifyRequest,
    reply: Parameters<typeof renderPage>[2],
    status: number,
    invited: Invitation | null,
    error: string | null,
  ) => {
    const account = accountOf(request);
    const row = await ctx.db
      .selectFrom('accounts')
      .select('dashboard_token_sign_in')
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    return renderPage(ctx, request, reply, status, 'users', {
      title: 'Usuarios',
      section: 'users',
      users: await listUsers(ctx, account.id),
      roles: dashboardRoles,
      tokenSignIn: row.dashboard_token_sign_in,
      invited,
      error,
    });
  };
  const owner = { config: { dashboardRole: 'owner' as const } };

  app.get('/users', owner, async (request, reply) => usersPage(request, reply, 200, null, null));

  app.post('/users/invite', formOptions(app, 'owner'), async (request, reply) => {
    // The row names the user invited, as `cobro users invite`'s does (decision 835), never the e-mail typed.
    const invited = await dashboardChange(
      ctx,
      request,
      (result) => (result.ok ? result.value.userId : null),
      (tx: AppContext): Promise<Result<Invitation>> =>
        inviteUser(tx, {
          accountId: accountOf(request).id,
          email: field(request.body, 'email'),
          role: field(request.body, 'role'),
        }),
      (result) => result.ok,
    );
    return invited.ok
      ? usersPage(request, reply, 200, invited.value, null)
      : usersPage(request, reply, 400, null, invited.error);
  });

  app.post('/users/token-sign-in', formOptions(app, 'owner'), async (request, reply) => {
    const allowed = field(request.body, 'allowed') === 'on';
    const set = await dashboardChange(
      ctx,
      request,
      allowed ? 'on' : 'off',
      (tx) => setTokenSignIn(tx, accountOf(request).id, allowed),
      (result) => result.ok,
    );
    if (!set.ok)
      return usersPage(
        request,
        reply,
        400,
        null,
        'Primero invita a un dueño y espera a que cree su contraseña.',
      );
    return reply.code(303).redirect('/dashboard/users');
  });
}

/** A signed-in user's own second factor. */
function registerTotpPages(app: FastifyInstance, ctx: AppContext): void {
  app.get('/account/totp', async (request, reply) => {
    const account = accountOf(request);
    if (account.userId === null || account.email === null)
      return renderMessage(
        ctx,
        request,
        reply,
        400,
        'Sin usuario',
        'Ingresaste con los tokens de la cuenta: el segundo factor es para usuarios con correo y contraseña.',
      );
    const secret = newTotpSecret();
    return renderPage(ctx, request, reply, 200, 'totp', {
      title: 'Segundo factor',
      secret,
      uri: totpUri(secret, account.email),
      replacing: await hasTotp(ctx, account.userId),
      error: null,
    });
  });

  // Limited as the sign-in forms are (decision 835): replacing a factor takes a code of the enrolled one, and a session
  // must not be able to guess it at the service-wide rate.
  const totpForm = {
    ...formOptions(app, 'viewer'),
    config: { dashboardRole: 'viewer' as const, rateLimit: signInLimit },
  };
  app.post('/account/totp', totpForm, async (request, reply) => {
    const { userId, email } = accountOf(request);
    // The enrolled factor's code is guessed here too: counted with the user's sign-ins (decision 1090).
    if (email !== null) await countUserSignIn(ctx, request, email);
    const secret = field(request.body, 'secret');
    const enrolled =
      userId !== null &&
      base32Secret.test(secret) &&
      (await dashboardChange(
        ctx,
        request,
        userId,
        (tx) =>
          enrolTotp(tx, userId, secret, {
            code: field(request.body, 'code'),
            currentCode: field(request.body, 'current_code'),
          }),
        (added) => added,
      ));
    if (!enrolled)
      return renderMessage(
        ctx,
        request,
        reply,
        400,
        'Código incorrecto',
        'El código no corresponde. Vuelve a la página del segundo factor e inténtalo de nuevo.',
      );
    return renderMessage(
      ctx,
      request,
      reply,
      200,
      'Segundo factor activado',
      'Desde ahora, al ingresar se te pedirá el código de tu aplicación.',
    );
  });
}

export function registerUserPages(app: FastifyInstance, ctx: AppContext, secure: boolean): void {
  registerInvitePages(app, ctx, secure);
  registerUsersPage(app, ctx);
  registerTotpPages(app, ctx);
}
