// The hosted card-enrolment link (reference §7.6, §7.12): `/gateway/registrosuscripcion?tipoplan=N&plan=true&
// token=T&validacion=V`. The token names one enrolment row; `validacion` is random and checked in constant time,
// so a link cannot be guessed or built for another subscription. A link enrols at most one card.
import crypto from 'node:crypto';
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx } from '../../platform/db/types.ts';
import { randomHex } from '../../platform/ids/ids.ts';
import type { PlanType } from './types.ts';

/** The reference's `tipoplan` number of each plan type. */
const tipoplan: Record<PlanType, number> = { fixed: 1, variable: 2, consumption: 3 };

export interface EnrolmentRequest {
  readonly accountId: string;
  readonly subscriptionId: string;
  readonly planType: PlanType;
  readonly at: Date;
}

export async function createEnrolment(ctx: AppContext, request: EnrolmentRequest): Promise<string> {
  const token = randomHex(10);
  const validacion = randomHex(5);
  await ctx.db
    .insertInto('su_enrolments')
    .values({
      token,
      account_id: request.accountId,
      subscription_id: request.subscriptionId,
      validacion,
      created_at: request.at,
      used_at: null,
      card_id: null,
      attempt_key: null,
      attempt_lease_until: null,
    })
    .execute();
  return `${ctx.config.publicBaseUrl}/gateway/registrosuscripcion?tipoplan=${tipoplan[request.planType]}&plan=true&token=${token}&validacion=${validacion}`;
}

/** The enrolment a link names, when its `validacion` matches. */
export async function findEnrolment(db: DbOrTx, token: string, validacion: string) {
  if (!/^[0-9a-f]{20}$/.test(token) || !/^[0-9a-f]{10}$/.test(validacion)) return undefined;
  const row = await db
    .selectFrom('su_enrolments')
    .selectAll()
    .where('token', '=', token)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return crypto.timingSafeEqual(Buffer.from(row.validacion), Buffer.from(validacion))
    ? row
    : undefined;
}
