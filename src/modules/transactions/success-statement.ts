// The statement that records a payment's success, its text whole (decision 600): the row `success` with its
// approval's facts, its fee and its availability, answered as it is now (the result page shows it without reading
// it again), and its `transaction.result` callback, when it names a urlnotify, into the outbox by the same
// statement (a data-modifying CTE runs whether or not the query reads it). Since decision 730 the checkout's
// approved payments without an extension (and their groups, decision 615) are written by cobro_record_successes
// instead (success-record.ts); this statement serves every other success, one at a time (recordSuccess,
// transaction-result.ts): an extension's, Webpay's and Fintoc's returns, the mall, subscriptions. Its columns are
// still arrays, one element each, as when decision 615's groups came here; the text is pinned as it is.
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
 * Marks the row paid at `at` and writes its callback (callbackRow's row, timed at `at`), if any; answers the row as
 * it is now.
 */
export async function markPaid(
  tx: Tx,
  row: PaidRow,
  callback: OutboxRow | null,
  at: Date,
): Promise<TransactionRow> {
  const callbacks = callback === null ? [] : [callback];
  for (const c of callbacks)
    for (const time of [c.next_attempt_at, c.created_at, c.updated_at])
      assert.equal(
        (time as Date).getTime(),
        at.getTime(),
        "a success's callback is timed at the success",
      );
  // One element an array: the row's columns ($1-$15), then its callback's, empty when it has none ($17-$23).
  const result = await tx.executeQuery<TransactionRow>(
    CompiledQuery.raw(markPaidText, [
      [row.id],
      [row.paidPayment],
      [row.media],
      [row.authorizationCode],
      [row.cardBrand],
      [row.cardLast4],
      [row.cardToken],
      [row.cardType],
      [row.installments],
      [row.payerIdentifier],
      [row.payerBank],
      [row.payerIp],
      [row.feeMinor],
      [row.depositDate],
      [row.settleDueAt],
      at,
      callbacks.map((c) => c.id),
      callbacks.map((c) => c.account_id),
      callbacks.map((c) => c.url),
      callbacks.map((c) => c.event_type),
      callbacks.map((c) => c.body),
      callbacks.map((c) => c.status),
      callbacks.map((c) => c.attempts),
    ]),
  );
  const paid = result.rows.find((r) => r.id === row.id);
  assert.ok(paid !== undefined, 'the locked row is paid');
  return paid;
}
