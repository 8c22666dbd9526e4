// The statement that records payments' successes, its text whole (decisions 600, 615): each row `success` with its
// approval's facts, its fee and its availability, answered as it is now (the result page shows it without reading
// it again), and the `transaction.result` callbacks of those that name a urlnotify into the outbox by the same
// statement (a data-modifying CTE runs whether or not the query reads it). One element an array per payment: a
// payment alone is a group of one. Since decision 730 the checkout's approved payments without an extension (and
// their groups, decision 615) are written by cobro_record_successes instead (success-record.ts); this statement
// serves every other success: an extension's, Webpay's and Fintoc's returns, the mall, subscriptions.
import assert from 'node:assert/strict';
import { CompiledQuery } from 'kysely';
import type { Tx } from '../../platform/db/types.ts';
import type { callbackRow } from '../../platform/notifications/enqueue.ts';
import type { TransactionRow } from './repository.ts';

/**
 * $1-$15 the rows, one array a column: ids, payments paid, media, authorization codes, card brands, card last 4s,
 * card tokens, card types, instalments, payer identifiers, payer banks, payer IPs, fees, deposit dates, settlement
 * due times; $16 the account's now; $17-$23 the callbacks, one array a column: ids, accounts, URLs, event types,
 * bodies (the payload as JSON text), statuses, attempts. `charge_key` keeps the claim's attempt id: an UPDATE's SET
 * reads the row as it was.
 */
export const markPaidText = `WITH v AS (
    SELECT * FROM unnest($1::text[], $2::integer[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
      $8::text[], $9::integer[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::text[],
      $15::timestamptz[])
      AS v(id, paid_payment, media, authorization_code, card_brand, card_last4, card_token, card_type, installments,
        payer_identifier, payer_bank, payer_ip, fee_minor, deposit_date, settle_due_at)),
  paid AS (
    UPDATE transactions t SET status = 'success', updated_at = $16::timestamptz, ended_at = $16::timestamptz,
      attempt_id = NULL, attempt_lease_until = NULL, charge_key = t.attempt_id, paid_payment = v.paid_payment,
      media = v.media, authorization_code = v.authorization_code, card_brand = v.card_brand,
      card_last4 = v.card_last4, card_token = v.card_token, card_type = v.card_type, installments = v.installments,
      payer_identifier = v.payer_identifier, payer_bank = v.payer_bank, payer_ip = v.payer_ip,
      gateway_message = 'successful transaction', fee_minor = v.fee_minor, deposit_date = v.deposit_date,
      settle_due_at = v.settle_due_at
    FROM v WHERE t.id = v.id
    RETURNING t.*),
  callbacks AS (
    INSERT INTO notifications (id, account_id, url, event_type, payload, body, status, attempts, next_attempt_at,
      created_at, updated_at)
    SELECT c.id, c.account_id, c.url, c.event_type, c.body::jsonb, c.body, c.status, c.attempts,
      $16::timestamptz, $16::timestamptz, $16::timestamptz
    FROM unnest($17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::integer[])
      AS c(id, account_id, url, event_type, body, status, attempts))
SELECT * FROM paid`;

/** What the acquirer's approval and the payer's checkout say of a payment, as its row keeps them. */
export interface Approval {
  readonly paidPayment: number;
  readonly media: string;
  readonly authorizationCode: string;
  readonly cardBrand: string | null;
  readonly cardLast4: string | null;
  readonly cardToken: string | null;
  readonly cardType: string | null;
  readonly installments: number;
  readonly payerIdentifier: string | null;
  readonly payerBank: string | null;
  readonly payerIp: string | null;
}

/** One row's success: the row paid, with what its approval and its fee say. */
export interface PaidRow extends Approval {
  readonly id: string;
  readonly feeMinor: bigint;
  readonly depositDate: string;
  readonly settleDueAt: Date;
}

type OutboxRow = ReturnType<typeof callbackRow>;

/**
 * Marks the rows paid at `at` and writes the callbacks (callbackRow's rows, each timed at `at`); answers the rows as
 * they are now, in the order given.
 */
export async function markPaid(
  tx: Tx,
  rows: readonly PaidRow[],
  callbacks: readonly OutboxRow[],
  at: Date,
): Promise<TransactionRow[]> {
  assert.ok(rows.length >= 1, 'a success statement pays a row at least');
  for (const c of callbacks)
    for (const time of [c.next_attempt_at, c.created_at, c.updated_at])
      assert.equal(
        (time as Date).getTime(),
        at.getTime(),
        "a success's callback is timed at the success",
      );
  const column = <R, T>(items: readonly R[], pick: (item: R) => T): T[] => items.map(pick);
  const result = await tx.executeQuery<TransactionRow>(
    CompiledQuery.raw(markPaidText, [
      column(rows, (r) => r.id),
      column(rows, (r) => r.paidPayment),
      column(rows, (r) => r.media),
      column(rows, (r) => r.authorizationCode),
      column(rows, (r) => r.cardBrand),
      column(rows, (r) => r.cardLast4),
      column(rows, (r) => r.cardToken),
      column(rows, (r) => r.cardType),
      column(rows, (r) => r.installments),
      column(rows, (r) => r.payerIdentifier),
      column(rows, (r) => r.payerBank),
      column(rows, (r) => r.payerIp),
      column(rows, (r) => r.feeMinor),
      column(rows, (r) => r.depositDate),
      column(rows, (r) => r.settleDueAt),
      at,
      column(callbacks, (c) => c.id),
      column(callbacks, (c) => c.account_id),
      column(callbacks, (c) => c.url),
      column(callbacks, (c) => c.event_type),
      column(callbacks, (c) => c.body),
      column(callbacks, (c) => c.status),
      column(callbacks, (c) => c.attempts),
    ]),
  );
  const byId = new Map(result.rows.map((row) => [row.id, row]));
  return rows.map((r) => {
    const paid = byId.get(r.id);
    assert.ok(paid !== undefined, 'every locked row is paid');
    return paid;
  });
}
