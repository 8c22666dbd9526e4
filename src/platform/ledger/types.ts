import type { Int8, Timestamp } from '../db/types.ts';
import type { Generated } from 'kysely';

interface LedgerAccountTable {
  id: Generated<bigint>;
  owner: string;
  code: string;
  currency: string;
  balance_minor: Int8;
  non_negative: boolean;
}

interface JournalEntryTable {
  id: string;
  kind: string;
  reference: string;
  memo: string;
  created_at: Timestamp;
}

interface PostingTable {
  id: Generated<bigint>;
  journal_id: string;
  ledger_account_id: Int8;
  currency: string;
  amount_minor: Int8;
  /** Null on a derived (system) account, which keeps no running balance (decision 130). */
  balance_after_minor: Int8 | null;
}

declare module '../db/types.ts' {
  interface Database {
    ledger_accounts: LedgerAccountTable;
    journal_entries: JournalEntryTable;
    postings: PostingTable;
  }
}
