// Who receives a paid transaction's net at settlement. A plain payment's net goes whole to the merchant's wallet.
// A payment that carries an extension (a marketplace's clients, an event's beneficiaries, ...) first has the
// extension move its parts by its own journal (extension.ts); only the merchant's part is left for the wallet, or
// for the hold that keeps it (an escrow account's, decision 115: extension.ts's SettlementHold).
import assert from 'node:assert/strict';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import type { LedgerCode } from '../../platform/ledger/ledger.ts';
import { extensionOf, merchantDestination } from './extension.ts';
import type { TransactionRow } from './repository.ts';

interface NetAllocation {
  /** Ledger owner credited: the merchant account id. */
  readonly owner: string;
  readonly code: LedgerCode;
  readonly amountMinor: bigint;
}

export interface NetSettlement {
  /** What the settlement journal moves out of the merchant's pending settlement: the allocations, summed. */
  readonly allocations: readonly NetAllocation[];
  /** The part of the net an extension's journal already moved to clients or beneficiaries. */
  readonly splitMinor: bigint;
}

export async function allocateNet(
  ctx: AppContext,
  tx: Tx,
  row: TransactionRow,
  netMinor: bigint,
  at: Date,
): Promise<NetSettlement> {
  const extension = extensionOf(ctx, row);
  const merchantMinor =
    extension === null
      ? netMinor
      : (await extension.settle(ctx, tx, row, netMinor, at)).merchantMinor;
  // Asked for a zero part too: an escrow account's sale that refunds emptied still gets its (empty) hold, where a
  // refund the processor refuses later gives the money back, rather than to the wallet (decision 1030).
  const code = await merchantDestination(ctx, tx, row, merchantMinor, at);
  const allocations: NetAllocation[] =
    merchantMinor > 0n ? [{ owner: row.account_id, code, amountMinor: merchantMinor }] : [];
  const splitMinor = netMinor - merchantMinor;
  assert.ok(splitMinor >= 0n, 'the merchant never gets more than the net');
  assert.equal(
    allocations.reduce((sum, a) => sum + a.amountMinor, 0n) + splitMinor,
    netMinor,
    'allocations add up to the net',
  );
  return { allocations, splitMinor };
}
