// The dashboard's changes of state, each with its audit row in the same transaction (decision 531): the actor is
// the signed-in session (today one user per account; the roles of issue 37 name the user here later).
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import { inTransaction } from '../platform/db/unit-of-work.ts';
import type { Tx } from '../platform/db/types.ts';
import { sha256Hex } from '../platform/auth/secrets.ts';
import { dashboardActor } from '../platform/audit/actor.ts';
import { recordAudit } from '../platform/audit/record.ts';
import { sessionCookie } from './auth-pages.ts';
import { accountOf, dashboardUserOf } from './render.ts';

function sessionHash(request: FastifyRequest): string {
  const signed = request.cookies[sessionCookie];
  const unsigned = signed === undefined ? null : request.unsignCookie(signed);
  return unsigned?.valid === true && unsigned.value !== null ? sha256Hex(unsigned.value) : '';
}

/**
 * Runs `work` in one transaction with the audit row of the form that asked for it; `changed` says whether the
 * work's result changed anything (a refusal records nothing).
 */
export async function dashboardChange<T>(
  ctx: AppContext,
  request: FastifyRequest,
  target: string | null,
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
        action: `${request.method} ${request.routeOptions.url ?? request.url}`,
        target,
        requestId: request.id,
        at: ctx.clock.now(),
      });
    return value;
  });
}
