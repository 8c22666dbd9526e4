// Cobro's record of every Oneclick authorize (migration 0330, decision 500): written before the call, so that a
// charge whose answer was lost is known to have maybe happened, and the retry asks Transbank's status for its buy
// order before sending anything again. The buy order is the charge's idempotency key (the payment's id).
import type { Db, Timestamp } from '../db/types.ts';

type OneclickChargeState = 'sent' | 'approved' | 'declined';

interface OneclickChargeTable {
  idempotency_key: string;
  account_id: string;
  buy_order: string;
  child_buy_order: string;
  child_commerce_code: string;
  amount_minor: bigint | string;
  state: OneclickChargeState;
  created_at: Timestamp;
  updated_at: Timestamp;
}

interface OneclickInscriptionTable {
  token: string;
  enrolment_token: string;
  account_id: string;
  username: string;
  /** `finishing` while one return finishes it at Transbank, until `lease_until` (migration 0830, decision 990). */
  state: 'started' | 'finishing' | 'finished' | 'failed';
  created_at: Timestamp;
  lease_until: Timestamp | null;
}

declare module '../db/types.ts' {
  interface Database {
    oneclick_charges: OneclickChargeTable;
    oneclick_inscriptions: OneclickInscriptionTable;
  }
}

export interface ChargeRecord {
  readonly buyOrder: string;
  readonly childBuyOrder: string;
  /** The child store that made the charge: its refunds go to it, whatever the account's keys name now. */
  readonly childCommerceCode: string;
  readonly state: OneclickChargeState;
}

export async function findChargeRecord(
  db: Db,
  idempotencyKey: string,
): Promise<ChargeRecord | undefined> {
  const row = await db
    .selectFrom('oneclick_charges')
    .select(['buy_order', 'child_buy_order', 'child_commerce_code', 'state'])
    .where('idempotency_key', '=', idempotencyKey)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : {
        buyOrder: row.buy_order,
        childBuyOrder: row.child_buy_order,
        childCommerceCode: row.child_commerce_code,
        state: row.state,
      };
}

/** The approved Oneclick charge of the payment `transactionId` (its idempotency key), if Oneclick made it. */
export async function approvedChargeFor(
  db: Db,
  transactionId: string,
): Promise<ChargeRecord | undefined> {
  const record = await findChargeRecord(db, transactionId);
  return record?.state === 'approved' ? record : undefined;
}

export async function recordChargeSent(
  db: Db,
  row: {
    idempotencyKey: string;
    accountId: string;
    buyOrder: string;
    childBuyOrder: string;
    childCommerceCode: string;
    amountMinor: bigint;
    at: Date;
  },
): Promise<void> {
  await db
    .insertInto('oneclick_charges')
    .values({
      idempotency_key: row.idempotencyKey,
      account_id: row.accountId,
      buy_order: row.buyOrder,
      child_buy_order: row.childBuyOrder,
      child_commerce_code: row.childCommerceCode,
      amount_minor: row.amountMinor,
      state: 'sent',
      created_at: row.at,
      updated_at: row.at,
    })
    .execute();
}

export async function recordChargeAnswer(
  db: Db,
  idempotencyKey: string,
  state: 'approved' | 'declined',
  at: Date,
): Promise<void> {
  await db
    .updateTable('oneclick_charges')
    .set({ state, updated_at: at })
    .where('idempotency_key', '=', idempotencyKey)
    .execute();
}
