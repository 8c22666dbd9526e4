// The marketplace as a payment extension (src/modules/transactions/extension.ts): a transaction created with
// `marketplace` (a membership token) divides its net among the membership's clients (decision 045).
import assert from 'node:assert/strict';
import type { PaymentExtension } from '../transactions/extension.ts';
import {
  recordMarketplaceShares,
  resolveMarketplaceForPayment,
  settleMarketplaceShares,
} from './payment.ts';
import { reverseMarketplaceShares } from './refund.ts';

export const marketplaceExtension: PaymentExtension = {
  name: 'marketplace',
  field: 'marketplace',
  async prepare(ctx, input) {
    const membership = await resolveMarketplaceForPayment(ctx.db, input.accountId, input.value);
    if (!membership.ok)
      return membership.reason === 'unknown'
        ? { ok: false, errors: { marketplace: 'invalid' } }
        : { ok: false, failure: membership.failure };
    // The membership is fixed at creation, so a later suspension or edit does not move an accepted payment's money.
    return {
      ok: true,
      attach: async () => ({ ok: true, ref: membership.membershipId }),
    };
  },
  async recordSuccess(_ctx, tx, row, paid) {
    // The row's reference is the membership fixed at creation.
    assert.ok(row.extension_ref !== null);
    await recordMarketplaceShares(tx, {
      accountId: row.account_id,
      membershipId: row.extension_ref,
      transactionId: row.id,
      currency: row.currency,
      netMinor: paid.grossMinor - paid.feeMinor,
      at: paid.at,
    });
  },
  async settle(ctx, tx, row, netMinor, at) {
    const { shares } = await settleMarketplaceShares(ctx.ledger, tx, {
      accountId: row.account_id,
      transactionId: row.id,
      at,
    });
    // A refund the processor refused gave its money back to this sale's pending net (decision 695) while the
    // division stays reduced (decision 116): what the division no longer holds is the merchant's (decision 790).
    assert.ok(netMinor >= shares.netMinor, 'the shares divide at most the net');
    return { merchantMinor: shares.merchantMinor + (netMinor - shares.netMinor) };
  },
  async reverse(ctx, tx, row, reversal) {
    const reversed = await reverseMarketplaceShares(ctx, tx, {
      accountId: row.account_id,
      transactionId: row.id,
      currency: row.currency,
      netMinor: reversal.amountMinor - reversal.feeBackMinor,
      reference: reversal.reference,
      at: reversal.at,
    });
    return { ok: true, ...reversed };
  },
};
