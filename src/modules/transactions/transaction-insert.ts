// The create's INSERT, each form's text written whole here (decisions 200 and 471; test/modules/transactions/
// transaction-insert-text.test.ts asserts it). Kysely built and compiled this 20-column statement anew for every
// create, about a tenth of the serving process's CPU per create; now only the values are bound. The statement runs
// through Kysely all the same (executeQuery), so its plugins see it.
import { CompiledQuery } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx } from '../../platform/db/types.ts';
import type { TransactionTable } from './types.ts';
import { auditColumns, type AuditEntry } from '../../platform/audit/record.ts';

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
  /** The extension's name and what it names (decision 550); both null for a plain sale. */
  readonly extension: string | null;
  readonly extensionRef: string | null;
  readonly paymentKey: string;
  readonly transactionKey: string;
  readonly verificationKey: string;
  /** The account's now when the checks already read it; null lets the statement compute it (sandbox clock). */
  readonly createdAt: Date | null;
}

/** The bound columns in the order of `valuesOf` ($1-$17), checked against the table's type; $18 is the time. */
const boundColumns = [
  'id',
  'account_id',
  'email',
  'order',
  'subject',
  'amount_minor',
  'currency',
  'payment',
  'expires_at',
  'urlreturn',
  'urlnotify',
  'additional_parameters',
  'extension',
  'extension_ref',
  'payment_key',
  'transaction_key',
  'verification_key',
] as const satisfies readonly (keyof TransactionTable)[];

function valuesOf(row: NewTransaction, at: Date): readonly unknown[] {
  return [
    row.id,
    row.accountId,
    row.email,
    row.order,
    row.subject,
    row.amountMinor,
    row.currency,
    row.payment,
    row.expiresAt,
    row.urlreturn,
    row.urlnotify,
    row.additionalParametersJson,
    row.extension,
    row.extensionRef,
    row.paymentKey,
    row.transactionKey,
    row.verificationKey,
    at,
  ];
}

/** One row, its time bound as it is ($18): production, or a sandbox create that knew the account's now. */
export const insertAtGivenText = `INSERT INTO transactions ("id", "account_id", "email", "order", "subject", "amount_minor", "currency",
    "payment", "expires_at", "urlreturn", "urlnotify", "additional_parameters", "extension", "extension_ref",
    "payment_key", "transaction_key", "verification_key", status, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, 'pending',
    $18::timestamptz, $18::timestamptz)`;

/**
 * One row, its time the service clock ($18) plus its account's ($2) sandbox offset, through migration 0250's
 * function, whose query plan the session keeps (decision 200).
 */
export const insertAtAccountNowText = `INSERT INTO transactions ("id", "account_id", "email", "order", "subject", "amount_minor", "currency",
    "payment", "expires_at", "urlreturn", "urlnotify", "additional_parameters", "extension", "extension_ref",
    "payment_key", "transaction_key", "verification_key", status, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, 'pending',
    ($18::timestamptz + cobro_account_offset_ms($2) * INTERVAL '1 millisecond'),
    ($18::timestamptz + cobro_account_offset_ms($2) * INTERVAL '1 millisecond'))`;

/** Whether the statement adds the account's sandbox offset to the service clock for this row's time. */
function statementAddsOffset(ctx: AppContext, row: NewTransaction): boolean {
  return row.createdAt === null && ctx.config.mode === 'sandbox';
}

export async function insertTransaction(
  ctx: AppContext,
  db: DbOrTx,
  row: NewTransaction,
): Promise<void> {
  const text = statementAddsOffset(ctx, row) ? insertAtAccountNowText : insertAtGivenText;
  await db.executeQuery(
    CompiledQuery.raw(text, valuesOf(row, row.createdAt ?? ctx.clock.now()) as unknown[]),
  );
}

/**
 * Several creates' rows in one statement (decision 400), one array a column ($1-$17 as insertAtGivenText's, $18
 * each row's bound time, $19 its account when the statement adds that account's sandbox offset, else null), so the
 * text is the same for any number of rows. `additional_parameters` travels as text and is cast.
 */
export const insertGroupText = `INSERT INTO transactions ("id", "account_id", "email", "order", "subject", "amount_minor", "currency",
    "payment", "expires_at", "urlreturn", "urlnotify", "additional_parameters", "extension", "extension_ref",
    "payment_key", "transaction_key", "verification_key", status, created_at, updated_at)
  SELECT r."id", r."account_id", r."email", r."order", r."subject", r."amount_minor", r."currency", r."payment",
    r."expires_at", r."urlreturn", r."urlnotify", r."additional_parameters"::jsonb, r."extension", r."extension_ref",
    r."payment_key", r."transaction_key", r."verification_key", 'pending',
    CASE WHEN r.offset_account IS NULL THEN r.at ELSE r.at + cobro_account_offset_ms(r.offset_account) * INTERVAL '1 millisecond' END,
    CASE WHEN r.offset_account IS NULL THEN r.at ELSE r.at + cobro_account_offset_ms(r.offset_account) * INTERVAL '1 millisecond' END
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::integer[],
    $9::timestamptz[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[],
    $17::text[], $18::timestamptz[], $19::text[])
    AS r("id", "account_id", "email", "order", "subject", "amount_minor", "currency", "payment", "expires_at", "urlreturn",
      "urlnotify", "additional_parameters", "extension", "extension_ref", "payment_key", "transaction_key",
      "verification_key", at, offset_account)`;

/** insertGroupText's $1-$19, one array a column, a row an element. */
function groupColumns(ctx: AppContext, rows: readonly NewTransaction[]): unknown[][] {
  const values = rows.map((row) => valuesOf(row, row.createdAt ?? ctx.clock.now()));
  const columns = Array.from({ length: boundColumns.length + 1 }, (_, i) =>
    values.map((v) => v[i]),
  );
  columns.push(rows.map((row) => (statementAddsOffset(ctx, row) ? row.accountId : null)));
  return columns;
}

/**
 * Several creates' rows in ONE statement (decision 400): PGlite's cost is mostly the statement's, not the row's
 * (one row 200-290 µs of its CPU, eight rows 65-72 µs a row), and on PostgreSQL k rows share one commit. Atomic:
 * every row is written or none.
 */
export async function insertTransactions(
  ctx: AppContext,
  db: DbOrTx,
  rows: readonly NewTransaction[],
): Promise<void> {
  await db.executeQuery(CompiledQuery.raw(insertGroupText, groupColumns(ctx, rows)));
}

/**
 * Rows (insertGroupText's $1-$19) and their requests' audit rows ($20-$27 as cobro_audit_append_chains takes them,
 * migration 0430) in ONE statement, atomic with no transaction around it (decision
 * 605). Its locks in decision 531's order: the accounts' rows first (FOR KEY SHARE, as the rows' foreign key takes
 * them: `ins` reads `account_rows`), then the rows (`audit` reads `ins`), then each chain's head, last. It answers
 * the rows written and the chains appended to.
 */
export const insertGroupAuditedText = `WITH account_rows AS (
    SELECT id FROM accounts WHERE id = ANY($2::text[]) ORDER BY id FOR KEY SHARE),
  ins AS (
    ${insertGroupText}
    WHERE (SELECT count(*) FROM account_rows) >= 0
    RETURNING id),
  audit AS (
    SELECT cobro_audit_append_chains($20::text[], $21::text[], $22::text[], $23::text[],
      $24::text[], $25::text[], $26::text[], $27::timestamptz[]) AS chains
    WHERE (SELECT count(*) FROM ins) > 0)
SELECT (SELECT count(*) FROM ins) AS written, chains FROM audit`;

export async function insertTransactionsAudited(
  ctx: AppContext,
  db: DbOrTx,
  rows: readonly NewTransaction[],
  audit: readonly AuditEntry[],
): Promise<void> {
  await db.executeQuery(
    CompiledQuery.raw(insertGroupAuditedText, [
      ...groupColumns(ctx, rows),
      audit.map((e) => e.chain),
      ...auditColumns(audit),
    ]),
  );
}
