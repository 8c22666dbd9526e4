// A charge on a subscription's stored card, opened (stored-charge.ts tells both steps): the su_charges row, then a
// pending `transactions` row, in that order, inside the caller's database transaction, so a repeated `order` stops at
// the unique index before a payment exists.
import { sql } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import { newId, randomHex } from '../../platform/ids/ids.ts';
import type { ExtensionColumns } from '../transactions/extension.ts';
import { cardPayment } from './stored-charge.ts';
import type { ChargeKind } from './types.ts';

export interface OpenCharge {
  readonly accountId: string;
  readonly subscriptionId: string;
  readonly cardId: string;
  readonly kind: ChargeKind;
  readonly cycleNumber: number | null;
  /** A cycle charge's attempt (unique with the subscription and cycle: migration 0210). */
  readonly tryNumber?: number;
  readonly order: string;
  readonly description: string;
  readonly email: string;
  readonly amountMinor: bigint;
  readonly at: Date;
  /** What a payment extension names on the payment (a consumption charge's `marketplace`, decision 106). */
  readonly extension?: ExtensionColumns | null;
}

/** The new payment's id, or null when the account already used this consumption `order`. */
export async function openCharge(db: DbOrTx, input: OpenCharge): Promise<string | null> {
  const transactionId = newId('trx', 17);
  const charge = await db
    .insertInto('su_charges')
    .values({
      account_id: input.accountId,
      subscription_id: input.subscriptionId,
      transaction_id: transactionId,
      kind: input.kind,
      cycle_number: input.cycleNumber,
      try_number: input.tryNumber ?? null,
      order_ref: input.order,
      description: input.description,
      created_at: input.at,
      card_id: input.cardId,
      // The partial index's predicate as a literal: a prepared statement's generic plan cannot match it to a
      // parameter (decision 230).
    })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'order_ref'])
        .where('kind', '=', sql.lit('consumption'))
        .doNothing(),
    )
    .returning('transaction_id')
    .executeTakeFirst();
  if (charge === undefined) return null;
  await db
    .insertInto('transactions')
    .values({
      id: transactionId,
      account_id: input.accountId,
      status: 'pending',
      email: input.email,
      order: input.order,
      subject: input.description,
      amount_minor: input.amountMinor,
      currency: 'CLP',
      payment: cardPayment.payment,
      expires_at: null,
      urlreturn: null,
      urlnotify: null,
      additional_parameters: null,
      extension: null,
      extension_ref: null,
      ...input.extension,
      payment_key: newId('pr', 17),
      transaction_key: sixteenDigits(),
      // reference §7.11: a subscription charge's verification_key is 64 hex.
      verification_key: randomHex(32),
      created_at: input.at,
      updated_at: input.at,
    })
    .execute();
  return transactionId;
}

function sixteenDigits(): string {
  return `9${randomHex(8)
    .replace(/[a-f]/g, (c) => String(c.charCodeAt(0) % 10))
    .slice(0, 15)}`;
}
