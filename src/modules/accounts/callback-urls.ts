// The account's own callback URLs (decision 111): `notify_url` hears of changes to where money goes (decision 140),
// `nullification_url` of each refund's state (reference §3.3). Per-request URLs (a transaction's `urlnotify`, a
// payout's `url_notify`, a plan's) stay on their requests. A URL passes the checks a request's callback URL passes
// at creation (scheme by mode, no credentials, no forbidden address literal; decision 050); delivery checks the
// resolved address again.
import type { AppContext } from '../../platform/context.ts';
import { checkCallbackUrl } from '../../platform/notifications/ssrf-guard.ts';
import type { AccountResult } from './service.ts';
import { limits } from '../../limits/index.ts';

const accountUrlNames = ['notify', 'nullification'] as const;
type AccountUrlName = (typeof accountUrlNames)[number];

/** A URL to set, or null to clear it; an absent name is left as it is (none at all: the URLs are only read). */
export type AccountUrlChanges = Partial<Record<AccountUrlName, string | null>>;
export type AccountUrls = Record<AccountUrlName, string | null>;

function refusal(ctx: AppContext, accountId: string, url: string): string | null {
  if (url.length > limits.callbackUrlLengthMax)
    return `the URL has more than ${limits.callbackUrlLengthMax} characters`;
  const checked = checkCallbackUrl(url, ctx.config, accountId);
  return checked.ok ? null : `${url} cannot receive callbacks: ${checked.reason}`;
}

export async function setAccountUrls(
  ctx: AppContext,
  accountId: string,
  changes: AccountUrlChanges,
): Promise<AccountResult<AccountUrls>> {
  for (const name of accountUrlNames) {
    const url = changes[name];
    const refused = url === undefined || url === null ? null : refusal(ctx, accountId, url);
    if (refused !== null) return { ok: false, error: `--${name}-url: ${refused}` };
  }
  if (changes.notify === undefined && changes.nullification === undefined) {
    // Nothing to change: answer the URLs as they are.
    const row = await ctx.db
      .selectFrom('accounts')
      .select(['notify_url', 'nullification_url'])
      .where('id', '=', accountId)
      .executeTakeFirst();
    return row === undefined
      ? { ok: false, error: `no account with id ${accountId}` }
      : { ok: true, value: { notify: row.notify_url, nullification: row.nullification_url } };
  }
  const updated = await ctx.db
    .updateTable('accounts')
    .set({
      ...(changes.notify !== undefined ? { notify_url: changes.notify } : {}),
      ...(changes.nullification !== undefined ? { nullification_url: changes.nullification } : {}),
      updated_at: ctx.clock.now(),
    })
    .where('id', '=', accountId)
    .returning(['notify_url', 'nullification_url'])
    .executeTakeFirst();
  if (updated === undefined) return { ok: false, error: `no account with id ${accountId}` };
  ctx.logger.info(
    { accountId, notifyUrl: updated.notify_url, nullificationUrl: updated.nullification_url },
    'account callback URLs changed',
  );
  return {
    ok: true,
    value: { notify: updated.notify_url, nullification: updated.nullification_url },
  };
}
