// Sign-in and sign-out. The sign-in form is CSRF-protected too (a forged sign-in would put a victim in the
// attacker's account); a wrong pair of tokens answers the same page with one message, whichever token was wrong.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { dashboardLimits } from '../limits/index.ts';
import { renderPage } from './render.ts';
import { sessionCookie, signIn, signInUser, signOut, type TokenSignInRefusal } from './session.ts';
import { checkPassword } from './users.ts';
import { countUserSignIn, signInLimit } from './sign-in-tries.ts';
import { setDeviceCookie } from './device-cookie.ts';

/** What the sign-in page says of each refused pair of tokens: what to do instead (docs/dashboard.md). */
const tokenRefusalText: Record<TokenSignInRefusal, string> = {
  unknown: 'Esos tokens no corresponden a una cuenta activa.',
  not_primary:
    'Esos tokens son de una llave de la API: el panel se abre con los tokens principales de la cuenta, o con tu correo y contraseña.',
  token_sign_in_off:
    'El ingreso con tokens está desactivado para esta cuenta: entra con tu correo y contraseña.',
};

function sessionCookieOptions(secure: boolean) {
  return {
    path: '/dashboard',
    httpOnly: true,
    sameSite: 'strict' as const,
    secure,
    signed: true,
  };
}

export function setSessionCookie(reply: FastifyReply, sessionId: string, secure: boolean): void {
  reply.setCookie(sessionCookie, sessionId, {
    ...sessionCookieOptions(secure),
    maxAge: Math.floor(dashboardLimits.sessionMs / 1000),
  });
}

/** Only a path of the dashboard itself: never another host (`//evil`) or a scheme. */
function safeNext(value: unknown): string {
  return typeof value === 'string' &&
    /^\/dashboard(?:[/?][\w\-./?=&%+]*)?$/.test(value) &&
    !value.includes('//')
    ? value
    : '/dashboard';
}

export function field(body: unknown, name: string): string {
  const value =
    body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value.trim().slice(0, dashboardLimits.tokenLengthMax) : '';
}

export function registerAuthPages(app: FastifyInstance, ctx: AppContext, secure: boolean): void {
  const cookieOptions = sessionCookieOptions(secure);
  const loginPage = (
    request: Parameters<typeof renderPage>[1],
    reply: FastifyReply,
    status: number,
    error: string | null,
    next: string,
  ) => renderPage(ctx, request, reply, status, 'login', { title: 'Ingresar', error, next });

  app.get('/login', { config: { dashboardPublic: true } }, async (request, reply) =>
    loginPage(request, reply, 200, null, safeNext((request.query as Record<string, unknown>).next)),
  );

  app.post(
    '/login',
    { config: { dashboardPublic: true, rateLimit: signInLimit }, preHandler: app.csrfProtection },
    async (request, reply) => {
      const next = safeNext(field(request.body, 'next'));
      // A named user signs in with e-mail and password (decision 541); the account's tokens otherwise.
      if (field(request.body, 'email') !== '') {
        // Counted per e-mail too, before the hash, from every address together (decision 1090).
        // A browser with the user's device cookie is counted per device instead (decision 1185).
        await countUserSignIn(ctx, request, field(request.body, 'email'));
        const user = await checkPassword(
          ctx,
          field(request.body, 'email'),
          field(request.body, 'password'),
          field(request.body, 'code'),
        );
        if (user === null)
          return loginPage(request, reply, 401, 'Correo, contraseña o código incorrectos.', next);
        setSessionCookie(reply, await signInUser(ctx, user), secure);
        await setDeviceCookie(ctx, reply, user.userId, secure);
        return reply.code(303).redirect(next);
      }
      const publicToken = field(request.body, 'public_token');
      const privateToken = field(request.body, 'private_token');
      if (publicToken === '' || privateToken === '')
        return loginPage(
          request,
          reply,
          400,
          'Escribe el token público y el token privado de tu cuenta.',
          next,
        );
      const session = await signIn(ctx, publicToken, privateToken);
      if ('refused' in session)
        return loginPage(request, reply, 401, tokenRefusalText[session.refused], next);
      setSessionCookie(reply, session.sessionId, secure);
      return reply.code(303).redirect(next);
    },
  );

  app.post('/logout', { preHandler: app.csrfProtection }, async (request, reply) => {
    const signed = request.cookies[sessionCookie];
    const unsigned = signed === undefined ? null : request.unsignCookie(signed);
    if (unsigned?.valid === true && unsigned.value !== null) await signOut(ctx, unsigned.value);
    reply.clearCookie(sessionCookie, cookieOptions);
    return reply.code(303).redirect('/dashboard/login');
  });
}
