// Table types of the mall module (migration 0140; declaration merging, see src/platform/db/types.ts).
import type { Int8, Timestamp } from '../../platform/db/types.ts';

const mallStatuses = ['pending', 'success', 'rejected'] as const;
export type MallStatus = (typeof mallStatuses)[number];

interface MallTable {
  id: string;
  account_id: string;
  order: string;
  email: string;
  payment: number;
  currency: string;
  amount_minor: Int8;
  status: MallStatus;
  urlreturn: string;
  urlnotify: string | null;
  verification_key: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  checkout_opened_at: Timestamp | null;
  attempt_id: string | null;
  attempt_lease_until: Timestamp | null;
  ended_at: Timestamp | null;
  paid_payment: number | null;
  media: string | null;
  authorization_code: string | null;
  card_last4: string | null;
  card_type: string | null;
  gateway_message: string | null;
}

interface MallLineTable {
  mall_id: string;
  position: number;
  /**
   * SHA-256 (hex) of the store token the request sent (a public token or a membership token), as public tokens are
   * kept: the token itself is a credential and is neither stored nor answered back (migration 0300, decision 440).
   */
  merchant_hash: string;
  store_account_id: string;
  /** The display name GET /api/mall shows: the store account's name, or the membership's. */
  store_name: string;
  transaction_id: string;
  amount_minor: Int8;
  subject: string;
  event: string | null;
  individual_order: string;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    malls: MallTable;
    mall_lines: MallLineTable;
  }
}
