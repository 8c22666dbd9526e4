// Events as a payment extension (src/modules/transactions/extension.ts): a transaction created with `event` (the
// merchant's event code) is a sale of that event, divided among its beneficiaries (decision 042).
import assert from 'node:assert/strict';
import { validationError } from '../../platform/errors/errors.ts';
import type { PaymentExtension } from '../transactions/extension.ts';
import { restoreRefusedSale, reverseEventSale } from './refund.ts';
import { recordEventSale, resolveEventForSale, settleEventSale } from './sales.ts';

export const eventExtension: PaymentExtension = {
  name: 'event',
  field: 'event',
  async prepare(ctx, input) {
    const known = await ctx.db
      .selectFrom('events')
      .select('id')
      .where('account_id', '=', input.accountId)
      .where('code', '=', input.value)
      .executeTakeFirst();
    if (known === undefined) return { ok: false, errors: { event: 'not found' } };
    return {
      ok: true,
      async attach(tx) {
        // Locks the event row, so a sale and the fixing of the event's currency cannot race another sale.
        const sale = await resolveEventForSale(
          tx,
          input.accountId,
          input.value,
          input.at,
          input.currency,
        );
        if (sale.ok) return { ok: true, ref: sale.event.id };
        // Events are never deleted, so only the checks after the lookup above can refuse here.
        if (sale.reason === 'unknown') throw validationError({ event: 'not found' });
        return { ok: false, failure: sale.failure };
      },
    };
  },
  async recordSuccess(_ctx, tx, row, paid) {
    // The row's reference is the event's id.
    assert.ok(row.extension_ref !== null);
    await recordEventSale(tx, {
      accountId: row.account_id,
      eventId: row.extension_ref,
      transactionId: row.id,
      currency: row.currency,
      grossMinor: paid.grossMinor,
      feeMinor: paid.feeMinor,
      at: paid.at,
    });
  },
  async settle(ctx, tx, row, netMinor, at) {
    const { split } = await settleEventSale(ctx.ledger, tx, {
      accountId: row.account_id,
      transactionId: row.id,
      at,
    });
    // A refund the processor refused gave its money back to this sale's pending net (decision 695) while the
    // division stays reduced (decision 116): what the division no longer holds is the merchant's (decision 790).
    assert.ok(netMinor >= split.netMinor, 'the sale divides at most the net');
    return { merchantMinor: split.merchantMinor + (netMinor - split.netMinor) };
  },
  async reverse(ctx, tx, row, reversal) {
    const reversed = await reverseEventSale(ctx, tx, {
      accountId: row.account_id,
      transactionId: row.id,
      currency: row.currency,
      grossMinor: reversal.amountMinor,
      feeBackMinor: reversal.feeBackMinor,
      reference: reversal.reference,
      at: reversal.at,
    });
    return { ok: true, ...reversed };
  },
  async refused(_ctx, tx, row, refused) {
    await restoreRefusedSale(tx, row.id, refused.amountMinor, refused.feeBackMinor);
  },
};
