// Table types of refunds (migration 0120), merged into the shared Database interface.
import type { Int8, Timestamp } from '../../platform/db/types.ts';
import type { ColumnType, Generated } from 'kysely';
import type { NullificationStatus } from './states.ts';

export interface NullificationTable {
  id: string;
  /** Registration order (two refunds may share a timestamp on the sandbox clock). */
  seq: Generated<bigint>;
  account_id: string;
  transaction_id: string;
  amount_minor: Int8;
  currency: string;
  subject: string;
  /** reference §3.1: `total` when the funds were there and it executed at once, `partial` when it waits for funds. */
  type: 'total' | 'partial';
  status: NullificationStatus;
  /** The part of the service's fee given back with it (decision 110). */
  fee_back_minor: Int8;
  /** What it took from the transaction's own unsettled net, and from the wallet's available balance. */
  from_pending_minor: Int8;
  from_wallet_minor: Int8;
  /** What a split sale's extension took back itself from clients' or beneficiaries' payables (decision 116). */
  from_split_minor: Generated<bigint>;
  gateway: string;
  payment_type: string;
  refund_code: string | null;
  gateway_message: string | null;
  /** When the processor should be asked (again); null once it answered. */
  dispatch_due_at: Timestamp | null;
  dispatch_attempts: Generated<number>;
  /** The first dispatch, on the service clock (migration 0611): a retry's lookup and resend limits run from it. */
  dispatch_first_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** How the money goes back to the payer: the processor (cards) or a bank payout (decision 112). */
  channel: ColumnType<'processor' | 'bank', 'processor' | 'bank' | undefined, 'processor' | 'bank'>;
  /** A bank refund's latest payout (kind `refund`); null until the payer's bank details are recorded. */
  payout_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    nullifications: NullificationTable;
  }
}
