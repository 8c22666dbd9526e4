// The keys of operators' credits (`cobro wallet credit --key`, decision 720; migration 0500): one row per keyed
// credit, written in the credit's transaction, so a credit run again with its key is found, not made twice.
import type { Int8, Timestamp, Tx } from '../../platform/db/types.ts';

interface WalletCreditKeyTable {
  account_id: string;
  operator_key: string;
  credit_id: string;
  movement_id: string;
  currency: string;
  amount_minor: Int8;
  balance_after_minor: Int8;
  created_at: Timestamp;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    wallet_credit_keys: WalletCreditKeyTable;
  }
}

export interface KeyedCredit {
  readonly accountId: string;
  readonly operatorKey: string;
  readonly creditId: string;
  readonly movementId: string;
  readonly currency: string;
  readonly amountMinor: bigint;
  readonly balanceAfterMinor: bigint;
  readonly at: Date;
}

/**
 * The credit an operator made before with this key, if any. Read after the credit's wallet lock: a run with the
 * same key and currency at once waits there, then finds the first's row (another currency is caught by the key).
 */
export async function findKeyedCredit(
  tx: Tx,
  accountId: string,
  operatorKey: string,
): Promise<KeyedCredit | undefined> {
  const row = await tx
    .selectFrom('wallet_credit_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('operator_key', '=', operatorKey)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    accountId: row.account_id,
    operatorKey: row.operator_key,
    creditId: row.credit_id,
    movementId: row.movement_id,
    currency: row.currency,
    amountMinor: BigInt(row.amount_minor),
    balanceAfterMinor: BigInt(row.balance_after_minor),
    at: row.created_at,
  };
}

export async function recordKeyedCredit(tx: Tx, credit: KeyedCredit): Promise<void> {
  await tx
    .insertInto('wallet_credit_keys')
    .values({
      account_id: credit.accountId,
      operator_key: credit.operatorKey,
      credit_id: credit.creditId,
      movement_id: credit.movementId,
      currency: credit.currency,
      amount_minor: credit.amountMinor,
      balance_after_minor: credit.balanceAfterMinor,
      created_at: credit.at,
    })
    .execute();
}
