// An account with Fintoc keys takes bank transfers in CLP through Fintoc besides whatever takes its cards
// (decision 511): its processor is the card processor with Fintoc's `supports` added. The payment itself goes
// through `fintocProcessorFor` (the checkout's bank-transfer method). The client is loaded by the first account
// that has Fintoc keys, so a deployment without Fintoc never loads it (as decision 240 does for Webpay).
import type { AppContext } from '../context.ts';
import type { ColumnType, ExpressionBuilder } from 'kysely';
import type { Database, DbOrTx } from '../db/types.ts';
import type { PaymentProcessor } from './processor.ts';

declare module './account-processors.ts' {
  interface ProcessorSessionTable {
    /** The method the payer chose for a Fintoc session (4, 19 or 26; migration 0340); null for Webpay's. */
    payment: ColumnType<number | null, number | null | undefined, number | null>;
  }
}

/** Keeps the method the payer chose with the Fintoc session just started, for the sale's record. */
export async function rememberSessionMethod(
  ctx: AppContext,
  token: string,
  payment: number,
): Promise<void> {
  await ctx.db
    .updateTable('processor_sessions')
    .set({ payment })
    .where('token', '=', token)
    .execute();
}

/** The seed's bank-transfer methods production takes through Fintoc (issue 34): ETpay, Fintoc, Floid. */
export const fintocPayments: ReadonlySet<number> = new Set([4, 19, 26]);

/** Where Fintoc sends the payer back (success_url and cancel_url). */
export const fintocReturnPath = '/gateway/fintoc/return';

async function hasFintocRow(ctx: AppContext, accountId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('fintoc_settings')
    .select('account_id')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The account's Fintoc processor in production, or null (sandbox, or no Fintoc keys). */
export async function fintocProcessorFor(
  ctx: AppContext,
  accountId: string,
): Promise<PaymentProcessor | null> {
  if (ctx.config.mode !== 'production' || !(await hasFintocRow(ctx, accountId))) return null;
  const [{ fintocAccount }, { fintocProcessor }] = await Promise.all([
    import('./fintoc-settings.ts'),
    import('./fintoc-processor.ts'),
  ]);
  const account = await fintocAccount(ctx, ctx.db, accountId);
  if (account === null) return null;
  return fintocProcessor(account, {
    returnUrl: `${ctx.config.publicBaseUrl}${fintocReturnPath}`,
    now: () => ctx.clock.now(),
  });
}

/** Whether the sale was paid through Fintoc: its refunds go back through Fintoc (decision 511), not by bank details. */
export async function paidThroughFintoc(db: DbOrTx, transactionId: string): Promise<boolean> {
  const row = await db
    .selectFrom('processor_sessions')
    .select('attempt_id')
    .where('transaction_id', '=', transactionId)
    .where('processor', '=', 'fintoc')
    .where('state', '=', 'approved')
    .executeTakeFirst();
  return row !== undefined;
}

/** The accounts whose CLP payouts go out as Fintoc transfers (a JWS key and a source account), as a subquery. */
export function fintocSenders(eb: ExpressionBuilder<Database, keyof Database>) {
  return eb
    .selectFrom('fintoc_settings')
    .select('fintoc_settings.account_id')
    .where('fintoc_settings.jws_key_enc', 'is not', null)
    .where('fintoc_settings.source_account', 'is not', null);
}

/** `base` (the account's card processor) with Fintoc's bank transfers added when the account has Fintoc keys. */
export async function withFintoc(
  ctx: AppContext,
  accountId: string,
  base: PaymentProcessor,
): Promise<PaymentProcessor> {
  if (!(await hasFintocRow(ctx, accountId))) return base;
  return {
    ...base,
    ...(base.supports('bank_transfer') ? {} : { bankPayments: fintocPayments }),
    supports: (kind, currency) =>
      base.supports(kind, currency) ||
      (kind === 'bank_transfer' && (currency === undefined || currency === 'CLP')),
  };
}
