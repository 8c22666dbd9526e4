// Who receives a paid transaction's net at settlement. Today all of it goes to the merchant's wallet; the
// marketplace and event modules extend this one function to split it among clients and beneficiaries.
import assert from 'node:assert/strict';
import type { Tx } from '../../platform/db/types.ts';
import { ledgerCodes } from '../../platform/ledger/codes.ts';
import type { TransactionRow } from './repository.ts';

export interface NetAllocation {
  /** Ledger owner credited: the merchant account id, a marketplace client id, a beneficiary id. */
  readonly owner: string;
  readonly code: string;
  readonly amountMinor: bigint;
}

export async function allocateNet(_tx: Tx, row: TransactionRow, netMinor: bigint): Promise<readonly NetAllocation[]> {
  const allocations: NetAllocation[] = [{ owner: row.account_id, code: ledgerCodes.walletAvailable, amountMinor: netMinor }];
  assert.equal(allocations.reduce((sum, a) => sum + a.amountMinor, 0n), netMinor, 'allocations add up to the net');
  return allocations;
}
