// The nullification in reference §3.1's shape: ISO timestamps (unlike the rest of the API), the amount as an
// integer, `id` the transaction's.
import assert from 'node:assert/strict';
import type { NullificationRow } from './repository.ts';

export function jsonInteger(value: bigint): number {
  assert.ok(value <= BigInt(Number.MAX_SAFE_INTEGER), 'an amount fits a JSON number exactly');
  return Number(value);
}

export function nullifyView(row: NullificationRow) {
  return {
    id: row.transaction_id,
    amount: jsonInteger(BigInt(row.amount_minor)),
    currency: row.currency,
    type: row.type,
    status_nullify: row.status,
    payment: { gateway: row.gateway, payment_type: row.payment_type },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const registered = 'Successfully registered request';

/** POST's `gateway_response`: the reference's texts for a refund waiting on funds, and their counterparts. */
export function gatewayResponse(row: NullificationRow) {
  switch (row.status) {
    case 'awaiting_funds':
    case 'pending':
      return {
        status: registered,
        message:
          'The cancellation will be executed after the amount requested is deducted from your next settlement',
        notify: 'No availability in the wallet',
      };
    case 'reverse_deleted':
      return {
        status: registered,
        message: 'The processor refused the cancellation; the amount went back to your wallet',
        notify: row.gateway_message ?? 'refused',
      };
    case 'waiting_bank_details':
      return {
        status: registered,
        message:
          "The cancellation will be paid to the payer's bank account once its details are recorded",
        notify: 'Funds collected',
      };
    case 'complete':
    case 'reverse_completed':
      return {
        status: registered,
        message: 'The cancellation was executed with the funds of the sale and the wallet',
        notify: 'Funds collected',
      };
    default: {
      const never: never = row.status;
      return never;
    }
  }
}
