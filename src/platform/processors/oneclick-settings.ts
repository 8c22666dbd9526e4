// An account's Transbank Oneclick Mall keys (issue 33): the mall's commerce code, the child store's commerce code
// that each charge names, and the API key sealed under COBRO_SECRET_KEY. Set with `cobro accounts set-processor
// --oneclick-…` beside the Webpay Plus keys, in a table of its own so that either can be set alone.
import type { AppContext } from '../context.ts';
import type { DbOrTx, Timestamp } from '../db/types.ts';
import { transactionLimits } from '../../limits/index.ts';
import type { SettingsCheck } from './account-processors.ts';
import { environmentError, environmentUrl, shownEnvironment } from './environment-url.ts';

interface AccountOneclickTable {
  account_id: string;
  commerce_code: string;
  child_commerce_code: string;
  api_key_enc: string;
  environment: string;
  updated_at: Timestamp;
}

declare module '../db/types.ts' {
  interface Database {
    account_oneclick: AccountOneclickTable;
  }
}

export interface OneclickSettings {
  readonly commerceCode: string;
  readonly childCommerceCode: string;
  readonly apiKey: string;
  /** `integration`, `production` or an http(s) URL (a simulator, a proxy). */
  readonly environment: string;
}

/** What the dashboard and the CLI show: never the key. */
export interface OneclickSummary {
  readonly commerceCode: string;
  readonly childCommerceCode: string;
  readonly environment: string;
}

export function checkOneclickSettings(s: OneclickSettings): SettingsCheck {
  const code = new RegExp(`^\\d{${transactionLimits.acquirer.commerceCodeLength}}$`);
  const digits = transactionLimits.acquirer.commerceCodeLength;
  if (!code.test(s.commerceCode))
    return {
      ok: false,
      error: `--oneclick-commerce-code must be Transbank's ${digits}-digit mall commerce code`,
    };
  if (!code.test(s.childCommerceCode))
    return {
      ok: false,
      error: `--oneclick-child-commerce-code must be Transbank's ${digits}-digit store commerce code`,
    };
  if (
    !/^[\x21-\x7e]+$/.test(s.apiKey) ||
    s.apiKey.length > transactionLimits.acquirer.apiKeyLengthMax
  )
    return {
      ok: false,
      error: `--oneclick-api-key must be 1 to ${transactionLimits.acquirer.apiKeyLengthMax} printable characters without spaces`,
    };
  const environment = environmentError(s.environment);
  if (environment !== null) return { ok: false, error: environment };
  return { ok: true };
}

/** Stores (or replaces) the account's Oneclick Mall keys, the API key sealed. The caller checked the settings. */
export async function saveOneclickSettings(
  ctx: AppContext,
  accountId: string,
  s: OneclickSettings,
  at: Date,
): Promise<void> {
  const row = {
    commerce_code: s.commerceCode,
    child_commerce_code: s.childCommerceCode,
    api_key_enc: ctx.secrets.seal(s.apiKey),
    environment: s.environment,
    updated_at: at,
  };
  await ctx.db
    .insertInto('account_oneclick')
    .values({ account_id: accountId, ...row })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(row))
    .execute();
}

export async function oneclickSummary(
  db: DbOrTx,
  accountId: string,
): Promise<OneclickSummary | null> {
  const row = await db
    .selectFrom('account_oneclick')
    .select(['commerce_code', 'child_commerce_code', 'environment'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row === undefined
    ? null
    : {
        commerceCode: row.commerce_code,
        childCommerceCode: row.child_commerce_code,
        environment: shownEnvironment(row.environment),
      };
}

/** The keys a processor needs, the API key opened, the host resolved; null when the account has none. */
export async function oneclickKeys(
  ctx: AppContext,
  accountId: string,
): Promise<(Omit<OneclickSettings, 'environment'> & { environmentUrl: string }) | null> {
  const row = await ctx.db
    .selectFrom('account_oneclick')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (row === undefined) return null;
  const url = environmentUrl(row.environment);
  if (url === null) throw new Error(`account ${accountId} has an unusable Oneclick environment`);
  return {
    commerceCode: row.commerce_code,
    childCommerceCode: row.child_commerce_code,
    apiKey: ctx.secrets.open(row.api_key_enc),
    environmentUrl: url,
  };
}
