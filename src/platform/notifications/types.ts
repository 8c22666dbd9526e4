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
}

declare module '../db/types.ts' {
  interface Database {
    notifications: NotificationTable;
  }
}
