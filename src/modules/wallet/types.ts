// Tables of the wallet module, declared into the shared Database type.
import type { Int8, Timestamp } from '../../platform/db/types.ts';
import type { PayoutKind, PayoutStatus } from './payout-states.ts';

export interface PayoutTable {
  id: string;
  account_id: string;
  kind: PayoutKind;
  order: string;
  order_ext: string | null;
  /** Hash of the canonical request body: a repeated order replays only when the body is the same. */
  request_hash: string;
  currency: string;
  amount_minor: Int8;
  email: string;
  phone: string;
  subject: string;
  accountbank_name: string;
  accountbank_rut: string;
  accountbank_sbif: string;
  accountbank_type: '1' | '2' | '3';
  accountbank_num: string;
  url_notify: string | null;
  additional_parameters: string | null;
  status: PayoutStatus;
  reason_rejection: string;
  /** The wallet movement of the reservation: `identifier_wallet` and `origin_wallet`. */
  movement_id: string | null;
  /** When the next time-driven transition is due (account time); null when none is scheduled. */
  due_at: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The bank payroll file a production payout went out in (`cobro payouts export`); null until exported. */
  batch_id: string | null;
}

/** One bank payroll file (docs/payouts-production.md). */
interface PayoutBatchTable {
  id: string;
  /** The bank the file was written for (a code of GET /api/banks). */
  bank_sbif: string;
  format: 'csv';
  payout_count: number;
  created_at: Timestamp;
}

export interface AccountBankAccountTable {
  account_id: string;
  currency: string;
  sbif: string;
  type: '1' | '2' | '3';
  num: string;
  rut: string;
  holder_name: string;
  updated_at: Timestamp;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    payouts: PayoutTable;
    payout_batches: PayoutBatchTable;
    account_bank_accounts: AccountBankAccountTable;
  }
}
