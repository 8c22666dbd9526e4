// An account's Fintoc keys (`cobro accounts set-processor ID --fintoc-secret-key K --fintoc-webhook-secret S`):
// the secret key, the webhook secret and the optional JWS private key sealed under COBRO_SECRET_KEY, never
// printed back. Kept beside, not in, account_processors: an account may take cards through Webpay Plus and bank
// transfers through Fintoc at once (decision 511).
import type { AppContext } from '../context.ts';
import type { Db, Timestamp } from '../db/types.ts';
import { fintocLimits } from '../../limits/index.ts';
import type { FintocApi } from './fintoc-client.ts';

/**
 * Fintoc's production host: the client's own constant (`API_BASE_URL`, checked by test/platform/fintoc-seam.test.ts),
 * written here so that reading settings does not load the client: the package and axios load on the first call
 * to Fintoc (decision 240: what an embedded sandbox server never uses stays unloaded).
 */
export const fintocProductionUrl = 'https://api.fintoc.com';
import { transactionLimits } from '../../limits/index.ts';

interface FintocSettingsTable {
  account_id: string;
  secret_key_enc: string;
  webhook_secret_enc: string;
  jws_key_enc: string | null;
  source_account: string | null;
  environment: string;
  updated_at: Timestamp;
}

declare module '../db/types.ts' {
  interface Database {
    fintoc_settings: FintocSettingsTable;
  }
}

export interface FintocSettings {
  readonly secretKey: string;
  readonly webhookSecret: string;
  /** `production` or an http(s) URL (a simulator, a proxy). */
  readonly environment: string;
  /** PEM of the JWS key Fintoc's Transfers API requires; payouts go through Fintoc only with it. */
  readonly jwsPrivateKey: string | null;
  /** The Fintoc account (`acc_...`) transfers leave from and whose movements are reconciled. */
  readonly sourceAccount: string | null;
}

/** The host an `--environment` value names, or null when it names none. */
function fintocBaseUrl(environment: string): string | null {
  if (environment === 'production') return fintocProductionUrl;
  if (environment.length > fintocLimits.environmentUrlLengthMax) return null;
  try {
    const u = new URL(environment);
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.search !== '' || u.hash !== '')
      return null;
    if (u.username !== '' || u.password !== '') return null;
    return environment.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

const printable = (s: string, max: number) => /^[\x21-\x7e]+$/.test(s) && s.length <= max;

export function checkFintocSettings(
  s: FintocSettings,
): { ok: true } | { ok: false; error: string } {
  if (!printable(s.secretKey, fintocLimits.secretKeyLengthMax))
    return {
      ok: false,
      error: `--fintoc-secret-key must be 1 to ${fintocLimits.secretKeyLengthMax} printable characters without spaces`,
    };
  if (!printable(s.webhookSecret, fintocLimits.webhookSecretLengthMax))
    return {
      ok: false,
      error: `--fintoc-webhook-secret must be 1 to ${fintocLimits.webhookSecretLengthMax} printable characters without spaces`,
    };
  if (fintocBaseUrl(s.environment) === null)
    return { ok: false, error: '--environment must be production or an http(s) URL' };
  if (
    s.jwsPrivateKey !== null &&
    (s.jwsPrivateKey.length > fintocLimits.jwsKeyLengthMax ||
      !s.jwsPrivateKey.includes('PRIVATE KEY-----'))
  )
    return { ok: false, error: '--fintoc-jws-key-file must name a PEM private key' };
  if (s.sourceAccount !== null && !printable(s.sourceAccount, fintocLimits.accountIdLengthMax))
    return { ok: false, error: '--fintoc-account must be a Fintoc account id (acc_...)' };
  return { ok: true };
}

export async function saveFintocSettings(
  ctx: AppContext,
  accountId: string,
  s: FintocSettings,
  at: Date,
): Promise<void> {
  const row = {
    secret_key_enc: ctx.secrets.seal(s.secretKey),
    webhook_secret_enc: ctx.secrets.seal(s.webhookSecret),
    jws_key_enc: s.jwsPrivateKey === null ? null : ctx.secrets.seal(s.jwsPrivateKey),
    source_account: s.sourceAccount,
    environment: s.environment,
    updated_at: at,
  };
  await ctx.db
    .insertInto('fintoc_settings')
    .values({ account_id: accountId, ...row })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(row))
    .execute();
}

/** An account's Fintoc connection, opened: its API (through the client) and what the webhook needs. */
export interface FintocAccount {
  readonly accountId: string;
  readonly api: FintocApi;
  readonly webhookSecret: string;
  readonly canTransfer: boolean;
  readonly sourceAccount: string | null;
}

export async function fintocAccount(
  ctx: AppContext,
  db: Db,
  accountId: string,
): Promise<FintocAccount | null> {
  const row = await db
    .selectFrom('fintoc_settings')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (row === undefined) return null;
  const baseUrl = fintocBaseUrl(row.environment);
  if (baseUrl === null) throw new Error(`account ${accountId} has an unusable Fintoc environment`);
  const jws = row.jws_key_enc === null ? null : ctx.secrets.open(row.jws_key_enc);
  const { fintocApi } = await import('./fintoc-client.ts');
  return {
    accountId,
    api: fintocApi({
      baseUrl,
      secretKey: ctx.secrets.open(row.secret_key_enc),
      jwsPrivateKey: jws,
      timeoutMs: transactionLimits.acquirer.requestTimeoutMs,
    }),
    webhookSecret: ctx.secrets.open(row.webhook_secret_enc),
    canTransfer: jws !== null && row.source_account !== null,
    sourceAccount: row.source_account,
  };
}
