// GET /api/transaction/{id} and GET /api/transaction in reference §1.2/§1.3's shapes.
// Before a payment attempt has a result, `payment` is null; `nullify` is null until a nullification exists, then
// `{status}` of the latest one (docs/refunds.md)
// (docs/decisions/033-transaction-query-shapes.md).
import assert from 'node:assert/strict';
import type { AppContext } from '../../platform/context.ts';
import { validationError } from '../../platform/errors/errors.ts';
import { formatDate, formatTimestamp, parseLocal } from '../../platform/time/time-format.ts';
import { limits } from '../../limits/index.ts';
import { isStorableText } from '../../platform/http/input-guards.ts';
import { findAccountTransaction, type TransactionRow } from './repository.ts';
import type { TransactionListInput } from './schemas.ts';
import { integerAsExact } from '../../platform/money/json-number.ts';
import type { TransactionStatus } from './state-machine.ts';
import { formatRut } from '../../platform/ids/rut.ts';
import { readInChunks } from '../../platform/db/chunked-read.ts';

const pendingMessage = 'pending transaction';
const successMessage = 'successful transaction';
const expiredMessage = 'expired transaction';

function gatewayResponse(row: TransactionRow) {
  switch (row.status) {
    case 'pending':
      return { status: 'pending', message: pendingMessage };
    case 'success':
    case 'refunded partial':
    case 'refunded':
      return { status: row.status, message: successMessage };
    case 'rejected':
      return {
        status: 'rejected',
        message:
          row.gateway_message ??
          (row.rejection_reason === 'expired' ? expiredMessage : 'Rechazo de transacción.'),
      };
    default: {
      const never: never = row.status;
      return never;
    }
  }
}

function paymentView(ctx: AppContext, row: TransactionRow, withNetwork: boolean) {
  if (row.ended_at === null || row.paid_payment === null) return null;
  const tz = ctx.config.timeZone;
  const own: Record<string, unknown> = row.additional_parameters ?? {};
  const ownText = (key: string) => (typeof own[key] === 'string' ? own[key] : null);
  // The reference's OpenAPI lists these three for every payment: present, null when unknown (decision 440).
  const extra = {
    ...own,
    identificador:
      row.payer_identifier !== null ? formatRut(row.payer_identifier) : ownText('identificador'),
    banco: row.payer_bank ?? ownText('banco'),
    numero_cuenta: ownText('numero_cuenta'),
    ...(withNetwork && row.payer_ip !== null ? { network: { ip_address: row.payer_ip } } : {}),
  };
  return {
    start: formatTimestamp(row.checkout_opened_at ?? row.ended_at, tz),
    end: formatTimestamp(row.ended_at, tz),
    media: row.media,
    // A BIGINT sequence: exact past 2^53 - 1 too, never rounded to another sale's number (decision 940).
    transaction_id: integerAsExact(row.number),
    payment_key: row.payment_key,
    transaction_key: row.transaction_key,
    deposit_date: row.deposit_date,
    verification_key: row.verification_key,
    authorization_code: row.authorization_code,
    last_4_digits: row.card_last4,
    installments: row.installments,
    card_type: row.card_type,
    additional_parameters: extra,
    currency: row.currency,
  };
}

function transactionView(ctx: AppContext, row: TransactionRow) {
  return {
    status: row.status,
    id: row.id,
    created_at: formatTimestamp(row.created_at, ctx.config.timeZone),
    order: row.order,
    email: row.email,
    subject: row.subject,
    amount: String(row.amount_minor),
    payment: paymentView(ctx, row, true),
    nullify: row.nullify_status === null ? null : { status: row.nullify_status },
    gateway_response: gatewayResponse(row),
  };
}

/** reference §1.3 shows the list amount as a JSON integer: exact for the seed's 14 digits, asserted here. */
function jsonInteger(value: bigint): number {
  assert.ok(
    value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER),
    'integer fits a JSON number exactly',
  );
  return Number(value);
}

function listItem(ctx: AppContext, row: TransactionRow) {
  return {
    id: String(row.number),
    status: row.status,
    created_at: formatTimestamp(row.created_at, ctx.config.timeZone),
    email: row.email,
    amount: jsonInteger(row.amount_minor),
    order: row.order,
    subject: row.subject,
    payment: paymentView(ctx, row, false),
    nullify: row.nullify_status === null ? null : { status: row.nullify_status },
    gateway_response: gatewayResponse(row),
  };
}

export async function getTransaction(ctx: AppContext, accountId: string, key: string) {
  // No transaction has such a key, and the database would refuse to compare it.
  if (!isStorableText(key)) return null;
  const row = await findAccountTransaction(ctx.db, accountId, key);
  return row === undefined ? null : transactionView(ctx, row);
}

const flagStatuses: ReadonlyArray<
  readonly [keyof TransactionListInput, readonly TransactionStatus[]]
> = [
  ['pending', ['pending']],
  ['register', ['pending']],
  ['success', ['success']],
  ['rejected', ['rejected']],
  ['refunded', ['refunded', 'refunded partial']],
];

function nextDay(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(y, m - 1, d + 1));
  return next.toISOString().slice(0, 10);
}

export type TransactionList =
  | { readonly transaction: ReturnType<typeof listItem>[] }
  | { readonly status: 'failed'; readonly message_error: string };

export async function listTransactions(
  ctx: AppContext,
  accountId: string,
  query: TransactionListInput,
): Promise<TransactionList> {
  const tz = ctx.config.timeZone;
  const today = formatDate(await ctx.accountClock.now(accountId, ctx.db), tz);
  const dateInit =
    query.date_init === undefined || query.date_init === '' ? today : query.date_init;
  const dateEnd = query.date_end === undefined || query.date_end === '' ? today : query.date_end;
  const errors: Record<string, string> = {};
  const from = /^\d{4}-\d{2}-\d{2}$/.test(dateInit) ? parseLocal(dateInit, tz) : null;
  const until = /^\d{4}-\d{2}-\d{2}$/.test(dateEnd) ? parseLocal(nextDay(dateEnd), tz) : null;
  if (from === null) errors.date_init = 'invalid';
  if (until === null) errors.date_end = 'invalid';
  if (from !== null && until !== null && dateInit > dateEnd) errors.date_init = 'invalid';
  const statuses = new Set<TransactionStatus>();
  for (const [flag, mapped] of flagStatuses) {
    const v = query[flag];
    if (v === undefined || v === '' || v === 'false' || v === '0') continue;
    if (v !== 'true' && v !== '1') errors[flag] = 'invalid';
    for (const s of mapped) statuses.add(s);
  }
  if (Object.keys(errors).length > 0) throw validationError(errors);
  const perPage = query.per_page ?? limits.pageSizeDefault;
  const page = query.page ?? 1;
  let q = ctx.db
    .selectFrom('transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('created_at', '>=', from!)
    .where('created_at', '<', until!);
  if (statuses.size > 0) q = q.where('status', 'in', [...statuses]);
  const ordered = q.orderBy('number', 'desc');
  const rows = await readInChunks(
    perPage,
    (limit) =>
      ordered
        .limit(limit)
        .offset((page - 1) * perPage)
        .execute(),
    (last, limit) => ordered.where('number', '<', last.number).limit(limit).execute(),
  );
  if (rows.length === 0) {
    return {
      status: 'failed',
      message_error: `there are no records. filter date_init=${dateInit},date_end=${dateEnd}`,
    };
  }
  return { transaction: rows.map((r) => listItem(ctx, r)) };
}
