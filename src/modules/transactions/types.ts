// Table types of the transactions module (declaration merging, see src/platform/db/types.ts).
import type { ColumnType, Generated } from 'kysely';
import type { Int8, Json, Timestamp } from '../../platform/db/types.ts';
import type { TransactionStatus } from './state-machine.ts';

/** A BIGINT column with a default: optional when inserting. */
type DefaultedInt8 = ColumnType<bigint, bigint | number | undefined, bigint | number>;

export type RejectionReason = 'declined' | 'expired';

export interface TransactionTable {
  id: string;
  number: Generated<bigint>;
  account_id: string;
  status: TransactionStatus;
  email: string;
  order: string;
  subject: string;
  amount_minor: Int8;
  currency: string;
  payment: number | null;
  expires_at: Timestamp | null;
  urlreturn: string | null;
  urlnotify: string | null;
  additional_parameters: Json<Record<string, unknown>> | null;
  /** The payment extension the row carries, by its name, or null (decision 550, migration 0380). */
  extension: Generated<string | null>;
  /** What the extension named at creation (a membership's id, an event's id); set with `extension`. */
  extension_ref: Generated<string | null>;
  payment_key: string;
  transaction_key: string;
  verification_key: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  checkout_opened_at: Timestamp | null;
  attempt_id: string | null;
  attempt_lease_until: Timestamp | null;
  paid_payment: number | null;
  media: string | null;
  ended_at: Timestamp | null;
  rejection_reason: RejectionReason | null;
  gateway_message: string | null;
  authorization_code: string | null;
  card_brand: string | null;
  card_last4: string | null;
  card_token: string | null;
  card_type: string | null;
  installments: Generated<number>;
  payer_identifier: string | null;
  payer_bank: string | null;
  payer_ip: string | null;
  fee_minor: Int8 | null;
  deposit_date: string | null;
  settle_due_at: Timestamp | null;
  settled_at: Timestamp | null;
  /** The settlement run's batch that settled it (migration 0050). */
  settlement_batch_id: Generated<string | null>;
  /** The payment attempt that charged it: the processor's key for a refund (migration 0120). */
  charge_key: Generated<string | null>;
  /** Refunds registered and not deleted, in total (migration 0120); never more than amount_minor. */
  refunded_minor: DefaultedInt8;
  /** What refunds took from its net before settlement, which settlement then no longer moves (migration 0120). */
  refunded_pending_minor: DefaultedInt8;
  /** The latest nullification's state, shown as `nullify.status` (migration 0120). */
  nullify_status: Generated<string | null>;
}

/** What one settlement run settled for one account and currency (migration 0050). */
interface SettlementBatchTable {
  id: string;
  account_id: string;
  currency: string;
  created_at: Timestamp;
  transaction_count: number;
  gross_minor: Int8;
  fee_minor: Int8;
  net_minor: Int8;
}

/** One payer's try at paying on the checkout (migration 0180): each is kept, approved or declined. */
export interface PaymentAttemptTable {
  /** The attempt id, also the processor's idempotency key. */
  id: string;
  transaction_id: string;
  /** 1, 2, ... per transaction. */
  number: number;
  payment: number;
  media: string;
  /** abandoned: the payer left the acquirer's page (Webpay's TBK_TOKEN return). */
  outcome: 'approved' | 'declined' | 'abandoned';
  gateway_message: string;
  payer_message: string | null;
  card_brand: string | null;
  card_last4: string | null;
  payer_ip: string | null;
  created_at: Timestamp;
}

interface AccountFeeTable {
  account_id: string;
  payment: number;
  percent_bp: number;
  fixed_minor: Int8;
  updated_at: Timestamp;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    transactions: TransactionTable;
    account_fees: AccountFeeTable;
    settlement_batches: SettlementBatchTable;
    payment_attempts: PaymentAttemptTable;
  }
}
