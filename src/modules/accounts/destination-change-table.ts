import type { ColumnType } from 'kysely';
import type { Timestamp } from '../../platform/db/types.ts';

interface DestinationChangeTable {
  id: string;
  account_id: string;
  subject: 'account_bank' | 'marketplace_client_bank';
  subject_id: string;
  /** The destination before, in full (null when there was none); JSON of sbif, type, num, rut. */
  previous: ColumnType<unknown, string | null, string | null>;
  current: ColumnType<unknown, string, string>;
  source: 'api' | 'cli';
  notification_id: string | null;
  changed_at: Timestamp;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    destination_changes: DestinationChangeTable;
  }
}
