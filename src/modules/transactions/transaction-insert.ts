// The create's INSERT, its text written once (decision 200). Kysely built and compiled this 21-column statement
// anew for every create, about a tenth of the serving process's CPU per create; now only the values are bound.
// Its column names are checked against the table's type; the statement runs through Kysely all the same
// (executeQuery), so its plugins see it.
import { CompiledQuery } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx } from '../../platform/db/types.ts';
import { accountNowSqlText } from '../../platform/sandbox-clock.ts';
import type { TransactionTable } from './types.ts';

export interface NewTransaction {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly order: string;
  readonly subject: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly payment: number | null;
  readonly expiresAt: Date | null;
  readonly urlreturn: string | null;
  readonly urlnotify: string | null;
  readonly additionalParametersJson: string | null;
  readonly marketplace: string | null;
  readonly membershipId: string | null;
  readonly eventId: string | null;
  readonly paymentKey: string;
  readonly transactionKey: string;
  readonly verificationKey: string;
  /** The account's now when the checks already read it; null lets the statement compute it (sandbox clock). */
  readonly createdAt: Date | null;
}

// In the order of `valuesOf`; `status` is the literal 'pending', the two times one expression of $19.
const boundColumns = [
  'id', 'account_id', 'email', 'order', 'subject', 'amount_minor', 'currency', 'payment', 'expires_at', 'urlreturn',
  'urlnotify', 'additional_parameters', 'marketplace', 'membership_id', 'event_id', 'payment_key', 'transaction_key',
  'verification_key',
] as const satisfies readonly (keyof TransactionTable)[];

function valuesOf(row: NewTransaction, at: Date): readonly unknown[] {
  return [
    row.id, row.accountId, row.email, row.order, row.subject, row.amountMinor, row.currency, row.payment, row.expiresAt,
    row.urlreturn, row.urlnotify, row.additionalParametersJson, row.marketplace, row.membershipId, row.eventId,
    row.paymentKey, row.transactionKey, row.verificationKey, at,
  ];
}

function insertText(createdAt: string): string {
  const names = boundColumns.map((c) => `"${c}"`).join(', ');
  const places = boundColumns.map((_, i) => `$${i + 1}`).join(', ');
  return `INSERT INTO transactions (${names}, status, created_at, updated_at) VALUES (${places}, 'pending', ${createdAt}, ${createdAt})`;
}

const nowParam = `$${boundColumns.length + 1}`;
const accountIdParam = `$${boundColumns.indexOf('account_id') + 1}`;
/** The time is bound as it is: production, or a sandbox create whose checks read the account's clock. */
const insertAtGiven = insertText(`${nowParam}::timestamptz`);
/** The service clock is bound and the statement adds the account's sandbox offset. */
const insertAtAccountNow = insertText(accountNowSqlText(nowParam, accountIdParam));

export async function insertTransaction(ctx: AppContext, db: DbOrTx, row: NewTransaction): Promise<void> {
  const computed = row.createdAt === null && ctx.config.mode === 'sandbox';
  await db.executeQuery(CompiledQuery.raw(computed ? insertAtAccountNow : insertAtGiven, valuesOf(row, row.createdAt ?? ctx.clock.now()) as unknown[]));
}
