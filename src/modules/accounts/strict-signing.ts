// Strict signing (decision 140): once on, the account's every authenticated request must carry a valid
// Cobro-Signature. The directory reads the flag on each request, so the change applies to the next request.
import type { AppContext } from '../../platform/context.ts';
import type { AccountResult } from './service.ts';
import { limits } from '../../limits.ts';

export async function setStrictSigning(ctx: AppContext, accountId: string, required: boolean): Promise<AccountResult<{ readonly id: string; readonly strictSigning: boolean }>> {
  const updated = await ctx.db.updateTable('accounts').set({ strict_signing: required, updated_at: ctx.clock.now() })
    .where('id', '=', accountId).returning(['id', 'strict_signing']).executeTakeFirst();
  if (updated === undefined) return { ok: false, error: `no account with id ${accountId}` };
  ctx.logger.info({ accountId, strictSigning: updated.strict_signing }, 'strict signing changed');
  return { ok: true, value: { id: updated.id, strictSigning: updated.strict_signing } };
}

/** Where account-level callbacks go (decision 140): an http(s) URL of at most 600 characters, or null for none. */
export async function setNotifyUrl(ctx: AppContext, accountId: string, url: string | null): Promise<AccountResult<{ readonly notifyUrl: string | null }>> {
  if (url !== null) {
    let parsed: URL | null = null;
    try { parsed = new URL(url); } catch { parsed = null; }
    if (parsed === null || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')) return { ok: false, error: `not an http or https URL: ${url}` };
    if (url.length > limits.callbackUrlLengthMax) return { ok: false, error: `the URL has more than ${limits.callbackUrlLengthMax} characters` };
  }
  const updated = await ctx.db.updateTable('accounts').set({ notify_url: url, updated_at: ctx.clock.now() })
    .where('id', '=', accountId).returning('notify_url').executeTakeFirst();
  if (updated === undefined) return { ok: false, error: `no account with id ${accountId}` };
  return { ok: true, value: { notifyUrl: updated.notify_url } };
}
