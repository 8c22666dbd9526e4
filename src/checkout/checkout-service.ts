// What the checkout pages need from the transaction and reference data, without HTTP.
import type { AppContext } from '../platform/context.ts';
import { lockTransaction, type TransactionRow } from '../modules/transactions/repository.ts';
import { isExpired } from '../modules/transactions/attempt-claim.ts';
import { expiryRejection, recordRejection } from '../modules/transactions/transaction-result.ts';
import { readTransactionRow } from '../modules/transactions/row-reads.ts';
import { allMethodsPayment } from '../modules/transactions/transaction-create.ts';
import type { BankChoice, MethodOption, OrderSummary, Receipt } from './pages.ts';
import { formatTimestamp } from '../platform/time/time-format.ts';
import { inTransaction } from '../platform/db/unit-of-work.ts';
import {
  checkoutTakes,
  hasUndecidedSession,
  processorForAccount,
} from '../platform/processors/account-processors.ts';
import { findPaymentMethod, paymentMethodCatalogue } from '../modules/reference/repository.ts';

export async function orderSummary(ctx: AppContext, row: TransactionRow): Promise<OrderSummary> {
  // Kept in memory (AccountDirectory): a page costs no read of the account (issue 38).
  const merchant = await ctx.accounts.nameOf(row.account_id);
  if (merchant === null) throw new Error(`transaction ${row.id} names no account`);
  return {
    merchant,
    subject: row.subject,
    amountMinor: BigInt(row.amount_minor),
    currency: row.currency,
    order: row.order,
  };
}

/** The success page's receipt: when and how the transaction was paid; null until it is. */
export async function receiptOf(ctx: AppContext, row: TransactionRow): Promise<Receipt | null> {
  if (row.status === 'pending' || row.status === 'rejected' || row.paid_payment === null)
    return null;
  const method = await findPaymentMethod(ctx, row.currency, row.paid_payment);
  return {
    paidAt: formatTimestamp(row.ended_at ?? row.updated_at, ctx.config.timeZone),
    method: method?.name ?? String(row.paid_payment),
    cardLast4: row.card_last4,
    authorizationCode: row.authorization_code,
    bank: row.payer_bank,
  };
}

/**
 * Methods of the currency the processor can take: the account's own (processorForAccount) when `accountId` is
 * given, else the deployment's.
 */
export async function offeredMethods(
  ctx: AppContext,
  currency: string,
  accountId?: string,
): Promise<readonly MethodOption[]> {
  const processor =
    accountId === undefined ? ctx.processor : await processorForAccount(ctx, accountId);
  const rows = (await paymentMethodCatalogue(ctx)).filter((m) => m.currency === currency);
  const out: MethodOption[] = [];
  for (const r of rows) {
    if (
      (r.kind === 'card' || r.kind === 'bank_transfer') &&
      checkoutTakes(processor, r.kind, currency, r.payment)
    )
      out.push({ payment: r.payment, name: r.name, description: r.description, kind: r.kind });
  }
  return out;
}

/** The method the merchant fixed with `payment`, when it is one the checkout can offer. */
export function fixedMethod(
  row: TransactionRow,
  methods: readonly MethodOption[],
): MethodOption | null {
  if (row.payment === null || row.payment === allMethodsPayment) return null;
  return methods.find((m) => m.payment === row.payment) ?? null;
}

export async function banksFor(ctx: AppContext, currency: string): Promise<readonly BankChoice[]> {
  return ctx.db
    .selectFrom('banks')
    .select(['code', 'name'])
    .where('currency', '=', currency)
    .orderBy('sort_order')
    .execute();
}

/**
 * Loads the transaction for a page view; a pending one whose expiry has passed is rejected as expired here and
 * now, so the payer is sent back even before the expiry worker runs.
 */
export async function loadForCheckout(
  ctx: AppContext,
  id: string,
): Promise<TransactionRow | undefined> {
  const row = await readTransactionRow(ctx, id);
  if (row === undefined || row.status !== 'pending') return row;
  const accountNow = await ctx.accountClock.now(row.account_id, ctx.db, { kept: true });
  if (!isExpired(row, accountNow, ctx.clock.now())) return row;
  if (ctx.config.mode === 'production' && (await hasUndecidedSession(ctx.db, id))) return row;
  return inTransaction(ctx.db, async (tx) => {
    const locked = await lockTransaction(tx, id);
    if (locked === undefined) return undefined;
    const now = await ctx.accountClock.now(locked.account_id, tx);
    if (locked.status === 'pending' && isExpired(locked, now, ctx.clock.now())) {
      await recordRejection(tx, locked, expiryRejection, now);
      return { ...locked, status: 'rejected' as const, rejection_reason: 'expired' as const };
    }
    return locked;
  });
}

export async function markOpened(ctx: AppContext, row: TransactionRow): Promise<void> {
  if (row.checkout_opened_at !== null) return;
  await ctx.db
    .updateTable('transactions')
    .set({ checkout_opened_at: await ctx.accountClock.now(row.account_id, ctx.db, { kept: true }) })
    .where('id', '=', row.id)
    .where('checkout_opened_at', 'is', null)
    .execute();
}

/** reference §1.1: urlreturn with `message_error=expired&id=<trx>`. */
export function expiredReturnUrl(urlreturn: string, id: string): string {
  const u = new URL(urlreturn);
  u.searchParams.set('message_error', 'expired');
  u.searchParams.set('id', id);
  return u.toString();
}
