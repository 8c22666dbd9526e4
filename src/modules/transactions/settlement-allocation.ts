// Who receives a paid transaction's net at settlement. A plain payment's net goes whole to the merchant's wallet.
// A marketplace payment's clients, or an event sale's beneficiaries, first get their parts moved into their
// payables by their own module's journal (decisions 042, 045); only the merchant's part is left for the wallet.
import assert from 'node:assert/strict';
import type { Tx } from '../../platform/db/types.ts';
import { ledgerCodes } from '../../platform/ledger/codes.ts';
import { settleEventSale } from '../events/sales.ts';
import { settleMarketplaceShares } from '../marketplace/payment.ts';
import type { TransactionRow } from './repository.ts';

export interface NetAllocation {
  /** Ledger owner credited: the merchant account id, a marketplace client id, a beneficiary id. */
  readonly owner: string;
  readonly code: string;
  readonly amountMinor: bigint;
}

export interface NetSettlement {
  /** What the settlement journal moves out of the merchant's pending settlement: the allocations, summed. */
  readonly allocations: readonly NetAllocation[];
  /** The part of the net another module's journal already moved to clients or beneficiaries. */
  readonly splitMinor: bigint;
}

export async function allocateNet(tx: Tx, row: TransactionRow, netMinor: bigint, at: Date): Promise<NetSettlement> {
  let merchantMinor = netMinor;
  if (row.membership_id !== null) {
    const { shares } = await settleMarketplaceShares(tx, { accountId: row.account_id, transactionId: row.id, at });
    assert.equal(shares.netMinor, netMinor, 'the shares divided the same net');
    merchantMinor = shares.merchantMinor;
  } else if (row.event_id !== null) {
    const { split } = await settleEventSale(tx, { accountId: row.account_id, transactionId: row.id, at });
    assert.equal(split.netMinor, netMinor, 'the sale divided the same net');
    merchantMinor = split.merchantMinor;
  }
  const allocations: NetAllocation[] = merchantMinor > 0n
    ? [{ owner: row.account_id, code: ledgerCodes.walletAvailable, amountMinor: merchantMinor }]
    : [];
  const splitMinor = netMinor - merchantMinor;
  assert.ok(splitMinor >= 0n, 'the merchant never gets more than the net');
  assert.equal(allocations.reduce((sum, a) => sum + a.amountMinor, 0n) + splitMinor, netMinor, 'allocations add up to the net');
  return { allocations, splitMinor };
}
