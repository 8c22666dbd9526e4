// The disputes table (migration 0360, decision 530).
import type { ColumnType, Generated } from 'kysely';
import type { Int8, Timestamp } from '../../platform/db/types.ts';
import type { DisputeStatus } from './states.ts';

interface DisputeTable {
  id: string;
  /** The order disputes were opened in (two may share an instant). */
  seq: Generated<bigint>;
  account_id: string;
  transaction_id: string;
  amount_minor: Int8;
  currency: string;
  reason: string;
  status: DisputeStatus;
  /** What the opening took from the available wallet; the rest (debt_minor) the merchant owes the service. */
  from_wallet_minor: Int8;
  debt_minor: Int8;
  evidence_text: string | null;
  /** JSON array of URLs. */
  evidence_urls: ColumnType<readonly string[], string | undefined, string>;
  respond_by: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  resolved_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The operator's key: the import line or `disputes open --key` that opened it (decision 710); null otherwise. */
  operator_key: ColumnType<string | null, string | null | undefined, string | null>;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    disputes: DisputeTable;
  }
}
