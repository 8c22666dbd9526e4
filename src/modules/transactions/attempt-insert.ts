// One statement: the attempt row of a payment, numbered after its transaction's earlier attempts.
import { sql, type Insertable } from 'kysely';
import type { Tx } from '../../platform/db/types.ts';
import type { PaymentAttemptTable } from './types.ts';

/** Appends the attempt with the next number of its transaction (the row is locked) and answers that number. */
export async function recordAttempt(
  tx: Tx,
  a: Omit<Insertable<PaymentAttemptTable>, 'number'>,
): Promise<number> {
  const inserted = await sql<{ number: number }>`
    INSERT INTO payment_attempts (id, transaction_id, number, payment, media, outcome, gateway_message, payer_message, card_brand, card_last4, payer_ip, created_at)
    SELECT ${a.id}::text, ${a.transaction_id}::text, COALESCE(MAX(number), 0) + 1, ${a.payment}::integer, ${a.media}::text,
      ${a.outcome}::text, ${a.gateway_message}::text, ${a.payer_message ?? null}::text, ${a.card_brand ?? null}::text,
      ${a.card_last4 ?? null}::text, ${a.payer_ip ?? null}::text, ${a.created_at}::timestamptz
    FROM payment_attempts WHERE transaction_id = ${a.transaction_id}
    RETURNING number`.execute(tx);
  return Number(inserted.rows[0]!.number);
}
