// Funds orders: where money for an outgoing movement comes from, source by source, and what is missing when the
// sources do not cover it. Pure arithmetic, so it is property-tested apart from the database.
import assert from 'node:assert/strict';
import { ledgerCodes } from './codes.ts';
import type { LedgerKey } from './post.ts';

export interface FundsSource {
  readonly key: LedgerKey;
  /** At most this much may come from this source (e.g. one transaction's part of a shared pending settlement). */
  readonly capMinor?: bigint;
}

/** A refused movement: the sources hold `availableMinor`, `shortfallMinor` less than `requiredMinor`. */
export interface Shortfall {
  readonly ok: false;
  readonly requiredMinor: bigint;
  readonly availableMinor: bigint;
  readonly shortfallMinor: bigint;
}

export type FundsPlan = { readonly ok: true; readonly partsMinor: readonly bigint[] } | Shortfall;

/**
 * Takes `amountMinor` from the sources in their order: as much as each holds (up to its cap) before the next.
 * `balancesMinor[i]` is source i's balance under lock. Either every part is planned or nothing is.
 */
export function planTake(
  amountMinor: bigint,
  sources: readonly FundsSource[],
  balancesMinor: readonly bigint[],
): FundsPlan {
  assert.ok(amountMinor > 0n, 'a take moves money');
  assert.equal(sources.length, balancesMinor.length, 'one balance per source');
  let leftMinor = amountMinor;
  const partsMinor: bigint[] = [];
  for (const [i, source] of sources.entries()) {
    const balanceMinor = balancesMinor[i]!;
    let usableMinor = balanceMinor > 0n ? balanceMinor : 0n;
    if (source.capMinor !== undefined && source.capMinor < usableMinor)
      usableMinor = source.capMinor > 0n ? source.capMinor : 0n;
    const partMinor = usableMinor < leftMinor ? usableMinor : leftMinor;
    partsMinor.push(partMinor);
    leftMinor -= partMinor;
  }
  if (leftMinor > 0n)
    return {
      ok: false,
      requiredMinor: amountMinor,
      availableMinor: amountMinor - leftMinor,
      shortfallMinor: leftMinor,
    };
  return { ok: true, partsMinor };
}

/**
 * The funds order of a refund (issue 11): first what this transaction still has in the merchant's pending
 * settlement (at most `unsettledMinor`: the account is shared by every unsettled sale), then the merchant's
 * available wallet balance.
 */
export function pendingThenWallet(
  merchant: string,
  currency: string,
  unsettledMinor: bigint,
): readonly FundsSource[] {
  return [
    {
      key: { owner: merchant, code: ledgerCodes.pendingSettlement, currency },
      capMinor: unsettledMinor,
    },
    { key: { owner: merchant, code: ledgerCodes.walletAvailable, currency } },
  ];
}
