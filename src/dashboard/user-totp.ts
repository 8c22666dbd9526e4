// A dashboard user's second factor (decisions 541, 580, 640): enrolled once the user shows a code of it, and an
// enrolled one replaced only with a code of it too, spent as a sign-in spends one.
import type { AppContext } from '../platform/context.ts';
import { totpStep } from './totp.ts';
import { spendTotpStep } from './users.ts';

/** Whether the user has a second factor already (its page then asks for a code of it before replacing it). */
export async function hasTotp(ctx: AppContext, userId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('dashboard_users')
    .select('totp_secret_enc')
    .where('id', '=', userId)
    .executeTakeFirst();
  return row !== undefined && row.totp_secret_enc !== null;
}

/**
 * Adds a second factor to a user, once the user showed a code of it. A factor already there is replaced only with a
 * code of it too (decision 640): a session alone, borrowed or stolen, cannot swap the user's authenticator for its
 * own.
 */
export async function enrolTotp(
  ctx: AppContext,
  userId: string,
  secretBase32: string,
  codes: { readonly code: string; readonly currentCode: string },
): Promise<boolean> {
  const now = ctx.clock.now();
  const step = totpStep(secretBase32, codes.code, now);
  if (step === null) return false;
  const row = await ctx.db
    .selectFrom('dashboard_users')
    .select('totp_secret_enc')
    .where('id', '=', userId)
    .executeTakeFirst();
  if (row === undefined) return false;
  if (row.totp_secret_enc !== null) {
    const currentStep = totpStep(ctx.secrets.open(row.totp_secret_enc), codes.currentCode, now);
    if (currentStep === null || !(await spendTotpStep(ctx, userId, currentStep))) return false;
  }
  await ctx.db
    .updateTable('dashboard_users')
    .set({ totp_secret_enc: ctx.secrets.seal(secretBase32), totp_last_step: step })
    .where('id', '=', userId)
    .execute();
  return true;
}
