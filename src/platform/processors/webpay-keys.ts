// Every set of Webpay Plus keys an account was given (migration 0860, decision 996). A Webpay transaction can be
// committed, read and refunded only under the commerce code and host that created it, so its session names the keys
// that created it and those keys, not the account's current ones, are used for it afterwards.
import type { AppContext } from '../context.ts';
import type { DbOrTx, Timestamp } from '../db/types.ts';
import { newId } from '../ids/ids.ts';

interface WebpayKeysTable {
  id: string;
  account_id: string;
  commerce_code: string;
  environment: string;
  api_key_enc: string;
  updated_at: Timestamp;
}

declare module '../db/types.ts' {
  interface Database {
    webpay_keys: WebpayKeysTable;
  }
}

/** The keys a Webpay call is made with: its commerce code, API key and host. */
export interface WebpayKeys {
  readonly commerceCode: string;
  readonly apiKey: string;
  readonly environment: string;
}

/** Keeps `keys` among the account's Webpay keys (the newest API key of a commerce code and host wins); their id. */
export async function keepWebpayKeys(
  ctx: AppContext,
  db: DbOrTx,
  accountId: string,
  keys: WebpayKeys,
  at: Date,
): Promise<string> {
  const row = await db
    .insertInto('webpay_keys')
    .values({
      id: newId('wpk', 20),
      account_id: accountId,
      commerce_code: keys.commerceCode,
      environment: keys.environment,
      api_key_enc: ctx.secrets.seal(keys.apiKey),
      updated_at: at,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'commerce_code', 'environment']).doUpdateSet((eb) => ({
        api_key_enc: eb.ref('excluded.api_key_enc'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The id of the account's keys for this commerce code and host, or null when they were never kept. */
export async function webpayKeysId(
  db: DbOrTx,
  accountId: string,
  commerceCode: string,
  environment: string,
): Promise<string | null> {
  const row = await db
    .selectFrom('webpay_keys')
    .select('id')
    .where('account_id', '=', accountId)
    .where('commerce_code', '=', commerceCode)
    .where('environment', '=', environment)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** The keys that created the Webpay session of `token`, or null when it names none (created before migration 0860). */
export async function webpayKeysOfToken(
  ctx: AppContext,
  token: string,
): Promise<WebpayKeys | null> {
  const row = await ctx.db
    .selectFrom('processor_sessions')
    .innerJoin('webpay_keys', 'webpay_keys.id', 'processor_sessions.webpay_keys_id')
    .select(['webpay_keys.commerce_code', 'webpay_keys.environment', 'webpay_keys.api_key_enc'])
    .where('processor_sessions.token', '=', token)
    .executeTakeFirst();
  return row === undefined
    ? null
    : {
        commerceCode: row.commerce_code,
        environment: row.environment,
        apiKey: ctx.secrets.open(row.api_key_enc),
      };
}
