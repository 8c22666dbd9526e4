// The create's INSERT, its text written once (decision 200). Kysely built and compiled this 21-column statement
// anew for every create, about a tenth of the serving process's CPU per create; now only the values are bound.
// Its column names are checked against the table's type; the statement runs through Kysely all the same
// (executeQuery), so its plugins see it.
import { CompiledQuery } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx } from '../../platform/db/types.ts';
import { rowsFrom, StatementText, type RowsColumn } from '../../platform/db/statement-text.ts';
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

const quotedColumns = boundColumns.map((c) => `"${c}"`);
const insertInto = `INSERT INTO transactions (${quotedColumns.join(', ')}, status, created_at, updated_at)`;

function insertText(createdAt: string): string {
  const places = boundColumns.map((_, i) => `$${i + 1}`).join(', ');
  return `${insertInto} VALUES (${places}, 'pending', ${createdAt}, ${createdAt})`;
}

const nowParam = `$${boundColumns.length + 1}`;
const accountIdParam = `$${boundColumns.indexOf('account_id') + 1}`;
/** The time is bound as it is: production, or a sandbox create whose checks read the account's clock. */
const insertAtGiven = insertText(`${nowParam}::timestamptz`);
/** The service clock is bound and the statement adds the account's sandbox offset. */
const insertAtAccountNow = insertText(accountNowSqlText(nowParam, accountIdParam));

/** Whether the statement adds the account's sandbox offset to the service clock for this row. */
function computedAt(ctx: AppContext, row: NewTransaction): boolean {
  return row.createdAt === null && ctx.config.mode === 'sandbox';
}

export async function insertTransaction(ctx: AppContext, db: DbOrTx, row: NewTransaction): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(computedAt(ctx, row) ? insertAtAccountNow : insertAtGiven, valuesOf(row, row.createdAt ?? ctx.clock.now()) as unknown[]));
}

// The SQL type each bound column travels as in a group's arrays; `additional_parameters` goes as text and is cast.
const groupColumnTypes: readonly RowsColumn['type'][] = boundColumns.map((c) =>
  c === 'amount_minor' ? 'bigint' : c === 'payment' ? 'integer' : c === 'expires_at' ? 'timestamptz' : 'text');
const groupSelect = boundColumns.map((c) => (c === 'additional_parameters' ? `r."${c}"::jsonb` : `r."${c}"`)).join(', ');
// A row's time: bound as it is, or the service clock plus its account's sandbox offset (offset_account not null).
const groupAt = `CASE WHEN r.offset_account IS NULL THEN r.at ELSE r.at + cobro_account_offset_ms(r.offset_account) * INTERVAL '1 millisecond' END`;
const groupNames = [...quotedColumns, 'at', 'offset_account'];
const groupInsertHead = `${insertInto} SELECT ${groupSelect}, 'pending', ${groupAt}, ${groupAt} FROM `;

/**
 * Several creates' rows in ONE statement (decision 400): PGlite's cost is mostly the statement's, not the row's
 * (one row 200-290 µs of its CPU, eight rows 65-72 µs a row), and on PostgreSQL k rows share one commit. Atomic:
 * every row is written or none. Its text is the same for any number of rows (one array parameter a column).
 */
export async function insertTransactions(ctx: AppContext, db: DbOrTx, rows: readonly NewTransaction[]): Promise<void> {
  const st = new StatementText();
  const values = rows.map((row) => valuesOf(row, row.createdAt ?? ctx.clock.now()));
  const columns: RowsColumn[] = groupColumnTypes.map((type, i) => ({ type, values: values.map((v) => v[i]) }));
  columns.push({ type: 'timestamptz', values: values.map((v) => v[boundColumns.length]) });
  columns.push({ type: 'text', values: rows.map((row) => (computedAt(ctx, row) ? row.accountId : null)) });
  const source = rowsFrom(st, columns, 'r', groupNames);
  await db.executeQuery(st.compiled(groupInsertHead + source));
}
