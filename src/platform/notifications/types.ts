import type { ColumnType } from 'kysely';
import type { Json, Timestamp } from '../db/types.ts';

export const notificationStatuses = ['pending', 'delivering', 'delivered', 'failed'] as const;
export type NotificationStatus = (typeof notificationStatuses)[number];

export interface NotificationTable {
  id: string;
  account_id: string;
  url: string;
  event_type: string;
  payload: Json<Record<string, unknown>>;
  status: NotificationStatus;
  attempts: number;
  next_attempt_at: Timestamp;
  lease_until: Timestamp | null;
  last_error: string | null;
  last_status_code: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  delivered_at: Timestamp | null;
  /** Random token of the claim that holds the lease; a late answer from a lost lease cannot overwrite a newer one. */
  lease_token: ColumnType<string | null, string | null | undefined, string | null>;
  /** `attempts` when the current retry schedule started (0, or the count at the last manual resend). */
  schedule_start_attempts: ColumnType<number, number | undefined, number>;
  /** The JSON body exactly as enqueued (JSONB reorders keys); null on rows written before it existed. */
  body: ColumnType<string | null, string | null | undefined, string | null>;
}

export const attemptOutcomes = ['delivered', 'retry', 'failed', 'lost'] as const;
export type AttemptOutcome = (typeof attemptOutcomes)[number];

interface NotificationAttemptTable {
  notification_id: string;
  attempt_no: number;
  lease_token: string;
  started_at: Timestamp;
  finished_at: Timestamp | null;
  outcome: AttemptOutcome | null;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  response_excerpt: string | null;
}

declare module '../db/types.ts' {
  interface Database {
    notifications: NotificationTable;
    notification_attempts: NotificationAttemptTable;
  }
}
