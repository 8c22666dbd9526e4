// The dashboard's changes of state, each with its audit row in the same transaction (decision 531): the actor is
// the signed-in user, or the session of a sign-in with the account's tokens; on the invitation page, which has no
// session, the invited user (decision 675).
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { inTransaction } from '../platform/db/unit-of-work.ts';
import type { Tx } from '../platform/db/types.ts';
import { sha256Hex } from '../platform/auth/secrets.ts';
import { dashboardActor } from '../platform/audit/actor.ts';
import { recordAudit } from '../platform/audit/record.ts';
import { sessionCookie } from './session.ts';
import { accountOf, dashboardUserOf } from './render.ts';
import type { SignedInUser } from './users.ts';

function sessionHash(request: FastifyRequest): string {
  const signed = request.cookies[sessionCookie];
  const unsigned = signed === undefined ? null : request.unsignCookie(signed);
  return unsigned?.valid === true && unsigned.value !== null ? sha256Hex(unsigned.value) : '';
}

function actionOf(request: FastifyRequest): string {
  return `${request.method} ${request.routeOptions.url ?? request.url}`;
}

/**
 * Runs `work` in one transaction with the audit row of the form that asked for it; `changed` says whether the
 * work's result changed anything (a refusal records nothing). `target` is a function of the result when the work
 * makes the object it names (a new key's id).
 */
export async function dashboardChange<T>(
  ctx: AppContext,
  request: FastifyRequest,
  target: string | null | ((value: NoInfer<T>) => string | null),
  work: (tx: AppContext, db: Tx) => Promise<T>,
  changed: (value: T) => boolean,
): Promise<T> {
  const account = accountOf(request);
  return inTransaction(ctx.db, async (db) => {
    const value = await work({ ...ctx, db }, db);
    if (changed(value))
      await recordAudit(db, {
        chain: account.id,
        actor: dashboardActor(dashboardUserOf(request), sessionHash(request)),
        action: actionOf(request),
        target: typeof target === 'function' ? target(value) : target,
        requestId: request.id,
        at: ctx.clock.now(),
      });
    return value;
  });
}

/**
 * The invitation page's change, made with no session: `work` sets the invited user's password and answers that
 * user, who is the row's actor and object, in their account's chain; null changed nothing and records nothing.
 */
export async function invitedUserChange(
  ctx: AppContext,
  request: FastifyRequest,
  work: (tx: AppContext) => Promise<SignedInUser | null>,
): Promise<SignedInUser | null> {
  return inTransaction(ctx.db, async (db) => {
    const user = await work({ ...ctx, db });
    if (user !== null)
      await recordAudit(db, {
        chain: user.accountId,
        actor: dashboardActor(user.userId, ''),
        action: actionOf(request),
        target: user.userId,
        requestId: request.id,
        at: ctx.clock.now(),
      });
    return user;
  });
}
