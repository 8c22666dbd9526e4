// Which processor takes an account's payments. Sandbox: the deployment's sandbox processor for everyone.
// Production: the account's own acquirer set with `cobro accounts set-processor` (Webpay Plus today, its API key
// sealed under COBRO_SECRET_KEY), and otherwise none, so the checkout offers nothing it cannot take.
import type { ColumnType, Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { AppContext } from '../context.ts';
import type { Db, Timestamp } from '../db/types.ts';
import { transactionLimits } from '../../limits/index.ts';
import type { PaymentProcessor } from './processor.ts';
import { fintocPayments, withFintoc } from './fintoc-selection.ts';
import { inTransaction } from '../db/unit-of-work.ts';
import { keepWebpayKeys, webpayKeysId, webpayKeysOfToken } from './webpay-keys.ts';
import { environmentError, environmentUrl } from './environment-url.ts';

interface AccountProcessorTable {
  account_id: string;
  processor: 'webpay_plus';
  commerce_code: string;
  api_key_enc: string;
  environment: string;
  updated_at: Timestamp;
}

/** The name Webpay Plus's processor and its sessions carry (webpay-plus.ts, loaded only when an account needs it). */
export const webpayPlusName = 'webpay_plus';

type ProcessorSessionState = 'redirected' | 'committing' | 'approved' | 'declined' | 'abandoned';

/** One payment that left for the acquirer's page (migration 0181). */
export interface ProcessorSessionTable {
  attempt_id: string;
  transaction_id: string;
  account_id: string;
  processor: string;
  token: string;
  state: ProcessorSessionState;
  /**
   * Set by the processor that opened it (migration 0510, decision 725): while `redirected` the session holds its
   * sale, since the acquirer may still take the payment (Fintoc's sessions).
   */
  holds_sale: ColumnType<boolean, boolean | undefined, boolean>;
  /** The Webpay keys that created it (webpay_keys, migration 0860); null for other processors and older sessions. */
  webpay_keys_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../db/types.ts' {
  interface Database {
    account_processors: AccountProcessorTable;
    processor_sessions: ProcessorSessionTable;
  }
}

export interface WebpaySettings {
  readonly commerceCode: string;
  readonly apiKey: string;
  /** `integration`, `production` or an http(s) URL (a simulator, a proxy). */
  readonly environment: string;
}

export type SettingsCheck = { ok: true } | { ok: false; error: string };

export function checkWebpaySettings(s: WebpaySettings): SettingsCheck {
  if (!new RegExp(`^\\d{${transactionLimits.acquirer.commerceCodeLength}}$`).test(s.commerceCode)) {
    return {
      ok: false,
      error: `--webpay-commerce-code must be Transbank's ${transactionLimits.acquirer.commerceCodeLength}-digit commerce code`,
    };
  }
  if (
    !/^[\x21-\x7e]+$/.test(s.apiKey) ||
    s.apiKey.length > transactionLimits.acquirer.apiKeyLengthMax
  ) {
    return {
      ok: false,
      error: `--webpay-api-key must be 1 to ${transactionLimits.acquirer.apiKeyLengthMax} printable characters without spaces`,
    };
  }
  const environment = environmentError(s.environment);
  if (environment !== null) return { ok: false, error: environment };
  return { ok: true };
}

/**
 * Stores (or replaces) the account's Webpay Plus keys, the API key sealed, and keeps them among the keys its earlier
 * sales were made with (decision 996). The caller checked the settings.
 */
export async function saveWebpaySettings(
  ctx: AppContext,
  accountId: string,
  s: WebpaySettings,
  at: Date,
): Promise<void> {
  const row = {
    processor: 'webpay_plus' as const,
    commerce_code: s.commerceCode,
    api_key_enc: ctx.secrets.seal(s.apiKey),
    environment: s.environment,
    updated_at: at,
  };
  await inTransaction(ctx.db, async (tx) => {
    await keepWebpayKeys(ctx, tx, accountId, s, at);
    await tx
      .insertInto('account_processors')
      .values({ account_id: accountId, ...row })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(row))
      .execute();
  });
}

async function accountProcessorSettings(
  ctx: AppContext,
  accountId: string,
): Promise<{ processor: 'webpay_plus'; commerceCode: string; environment: string } | null> {
  const row = await ctx.db
    .selectFrom('account_processors')
    .select(['processor', 'commerce_code', 'environment'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row === undefined
    ? null
    : { processor: row.processor, commerceCode: row.commerce_code, environment: row.environment };
}

async function tokenOf(db: Db, attemptId: string): Promise<string | null> {
  const row = await db
    .selectFrom('processor_sessions')
    .select('token')
    .where('attempt_id', '=', attemptId)
    .where('state', '=', 'approved')
    .executeTakeFirst();
  return row?.token ?? null;
}

/** The processor that takes this account's payments (see the file's head); stored cards: Oneclick (issue 33). */
export async function processorForAccount(
  ctx: AppContext,
  accountId: string,
): Promise<PaymentProcessor> {
  const base = await webpayForAccount(ctx, accountId);
  if (ctx.config.mode === 'sandbox') return base;
  const { withOneclick } = await import('./oneclick-routing.ts');
  return withOneclick(ctx, accountId, base);
}

async function webpayForAccount(ctx: AppContext, accountId: string): Promise<PaymentProcessor> {
  if (ctx.config.mode === 'sandbox') return ctx.processor;
  const row = await ctx.db
    .selectFrom('account_processors')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (row === undefined) return withFintoc(ctx, accountId, ctx.processor);
  const url = environmentUrl(row.environment);
  if (url === null) throw new Error(`account ${accountId} has an unusable processor environment`);
  const { webpayPlusProcessor } = await import('./webpay-plus.ts');
  const webpay = webpayPlusProcessor(
    {
      commerceCode: row.commerce_code,
      apiKey: ctx.secrets.open(row.api_key_enc),
      environmentUrl: url,
      keysId: await webpayKeysId(ctx.db, accountId, row.commerce_code, row.environment),
    },
    {
      keysOfToken: async (token) => {
        const keys = await webpayKeysOfToken(ctx, token);
        const at = keys === null ? null : environmentUrl(keys.environment);
        return keys === null || at === null
          ? null
          : { commerceCode: keys.commerceCode, apiKey: keys.apiKey, environmentUrl: at };
      },
      timeoutMs: transactionLimits.acquirer.requestTimeoutMs,
      logger: ctx.logger,
      tokenOf: (attemptId) => tokenOf(ctx.db, attemptId),
    },
  );
  return withFintoc(ctx, accountId, webpay);
}

/** Whether some account of the deployment can take this method (production's public method list). */
export async function anyAccountCanTake(
  ctx: AppContext,
  currency: string,
  payment: number,
): Promise<boolean> {
  // Webpay Plus takes CLP cards; Fintoc, CLP bank transfers (decision 511).
  const method = await ctx.db
    .selectFrom('payment_methods')
    .select('kind')
    .where('currency', '=', currency)
    .where('payment', '=', payment)
    .executeTakeFirst();
  if (currency !== 'CLP' || (method?.kind !== 'card' && method?.kind !== 'bank_transfer'))
    return false;
  if (method.kind === 'bank_transfer' && !fintocPayments.has(payment)) return false;
  const row = await ctx.db
    .selectFrom(method.kind === 'card' ? 'account_processors' : 'fintoc_settings')
    .select('account_id')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether the checkout can take a method of this kind and currency through `processor`: cards, and bank logins in
 * CLP only (the login asks for a Chilean RUT; other countries' logins, Vepuy's among them, are not built). The one
 * rule behind GET /api/paymentmethods, the creation checks and the checkout's list (decision 451).
 */
export function checkoutTakes(
  processor: PaymentProcessor,
  kind: string,
  currency: string,
  payment?: number,
): boolean {
  if (kind === 'card') return processor.supports('card', currency);
  if (payment !== undefined && processor.bankPayments?.has(payment) === false) return false;
  return (
    kind === 'bank_transfer' && currency === 'CLP' && processor.supports('bank_transfer', currency)
  );
}

/** Why no payer could pay a sale, or null when one could: the creation checks' answer (decision 451). */
export type Unpayable = 'processor_not_configured' | 'currency_not_payable';

/**
 * Whether some method of `currency` (among `methods`, the catalogue) can be taken by `processor`; when none, in
 * production an account without its own processor is told so (`cobro accounts set-processor`).
 */
export async function unpayableReason(
  ctx: AppContext,
  processor: PaymentProcessor,
  accountId: string | null,
  currency: string,
  methods: ReadonlyArray<{ readonly currency: string; readonly kind: string }>,
): Promise<Unpayable | null> {
  if (methods.some((m) => m.currency === currency && checkoutTakes(processor, m.kind, currency)))
    return null;
  if (ctx.config.mode !== 'production') return 'currency_not_payable';
  if (accountId === null) return 'processor_not_configured';
  return (await accountProcessorSettings(ctx, accountId)) === null
    ? 'processor_not_configured'
    : 'currency_not_payable';
}

/**
 * A session the acquirer still decides, whose sale nothing else may decide (no expiry, no new attempt): a commit whose
 * answer was lost (decision 150), or a session not yet closed whose processor said it holds its sale (`holds_sale`:
 * a Fintoc checkout session, payable until Fintoc closes it; decisions 665, 725). The same rule is written in the
 * claim call's guard (migration 0510).
 */
export function isUndecidedSession(
  eb: ExpressionBuilder<{ processor_sessions: ProcessorSessionTable }, 'processor_sessions'>,
): Expression<SqlBool> {
  return eb.or([
    eb('processor_sessions.state', '=', 'committing'),
    eb.and([
      eb('processor_sessions.state', '=', 'redirected'),
      eb('processor_sessions.holds_sale', '=', true),
    ]),
  ]);
}

/** Whether the transaction has a session the acquirer still decides (isUndecidedSession). */
export async function hasUndecidedSession(db: Db, transactionId: string): Promise<boolean> {
  const row = await db
    .selectFrom('processor_sessions')
    .select('attempt_id')
    .where('transaction_id', '=', transactionId)
    .where(isUndecidedSession)
    .executeTakeFirst();
  return row !== undefined;
}
