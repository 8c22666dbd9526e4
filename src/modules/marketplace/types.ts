// Table types of the marketplace (migration 0040), merged into the shared Database interface.
import type { Generated } from 'kysely';
import type { Int8, Timestamp } from '../../platform/db/types.ts';

const recordStatuses = ['register', 'suspended'] as const;
type RecordStatus = (typeof recordStatuses)[number];

/** Where a client's share of one paid transaction stands (seed "Affiliation detail status"). */
export const shareStatuses = ['pending', 'liquidate', 'pending for deposit', 'paid'] as const;
export type ShareStatus = (typeof shareStatuses)[number];

/** How a share moves as the money does: settlement, then deposit to the client's bank, then confirmation. */
export const shareTransitions = {
  pending: ['liquidate'],
  liquidate: ['pending for deposit'],
  'pending for deposit': ['paid'],
  paid: [],
} as const satisfies Record<ShareStatus, readonly ShareStatus[]>;

interface MaClientTable {
  id: string;
  account_id: string;
  status: RecordStatus;
  name: string;
  phone: string;
  email: string;
  bank_sbif: string;
  bank_type: number;
  bank_num: string;
  bank_rut: string;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

interface MaMembershipTable {
  /** Creation order: several memberships can share one timestamp. */
  seq: Generated<bigint>;
  id: string;
  account_id: string;
  status: RecordStatus;
  name: string;
  token: string;
  merchant_bps: number;
  created_at: Timestamp;
  updated_at: Timestamp | null;
}

interface MaMembershipClientTable {
  membership_id: string;
  client_id: string;
  position: number;
  bps: number;
}

interface MaPaymentTable {
  transaction_id: string;
  account_id: string;
  membership_id: string;
  currency: string;
  net_minor: Int8;
  merchant_minor: Int8;
  /** What refunds took back of the net, and of the merchant's part of it (decision 116). */
  refunded_minor: Generated<bigint>;
  merchant_refunded_minor: Generated<bigint>;
  created_at: Timestamp;
  settled_at: Timestamp | null;
}

interface MaPaymentShareTable {
  transaction_id: string;
  client_id: string;
  membership_id: string;
  account_id: string;
  currency: string;
  bps: number;
  amount_minor: Int8;
  /** What refunds took back of this share (decision 116); the client gets amount_minor - refunded_minor. */
  refunded_minor: Generated<bigint>;
  status: ShareStatus;
  deposit_due_at: Timestamp | null;
  created_at: Timestamp;
  liquidated_at: Timestamp | null;
  deposit_started_at: Timestamp | null;
  paid_at: Timestamp | null;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    ma_clients: MaClientTable;
    ma_memberships: MaMembershipTable;
    ma_membership_clients: MaMembershipClientTable;
    ma_payments: MaPaymentTable;
    ma_payment_shares: MaPaymentShareTable;
  }
}
