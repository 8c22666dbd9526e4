// SQL for reading callback deliveries.
import { sql } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import type { NotificationStatus } from '../../platform/notifications/types.ts';
import '../../platform/notifications/types.ts';

export interface NotificationFilter {
  /** Null: every account (operator). */
  readonly accountId: string | null;
  readonly status?: NotificationStatus;
  /** Inclusive lower and exclusive upper bound on created_at. */
  readonly createdFrom?: Date;
  readonly createdBefore?: Date;
  readonly offset: number;
  readonly limit: number;
}

const columns = [
  'id',
  'account_id',
  'event_type',
  'url',
  'status',
  'attempts',
  'last_status_code',
  'last_error',
  'next_attempt_at',
  'created_at',
  'delivered_at',
  'payload',
] as const;

export async function listNotificationRows(db: DbOrTx, filter: NotificationFilter) {
  let query = db.selectFrom('notifications');
  if (filter.accountId !== null) query = query.where('account_id', '=', filter.accountId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore !== undefined)
    query = query.where('created_at', '<', filter.createdBefore);
  const counted = await query
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const rows = await query
    .select(columns)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(filter.offset)
    .limit(filter.limit)
    .execute();
  return { total: Number(counted.n), rows };
}

export type NotificationRow = Awaited<ReturnType<typeof listNotificationRows>>['rows'][number];

/**
 * One delivery with the text of its payload as sent (`body`; the jsonb's text on rows from before it existed): the
 * driver's JSON parse of the jsonb would round an integer past 2^53 - 1 and reorders keys (decision 930).
 */
export function findNotificationDetail(db: DbOrTx, id: string, accountId: string | null) {
  let query = db
    .selectFrom('notifications')
    .select(columns)
    .select(sql<string>`coalesce(body, payload::text)`.as('payload_text'))
    .where('id', '=', id);
  if (accountId !== null) query = query.where('account_id', '=', accountId);
  return query.executeTakeFirst();
}

export function findNotification(
  db: DbOrTx,
  id: string,
  accountId: string | null,
): Promise<NotificationRow | undefined> {
  let query = db.selectFrom('notifications').select(columns).where('id', '=', id);
  if (accountId !== null) query = query.where('account_id', '=', accountId);
  return query.executeTakeFirst();
}

/** A callback's newest `limit` attempts, oldest first: a long-resent callback shows its latest ones. */
export async function listAttempts(db: DbOrTx, notificationId: string, limit: number) {
  const newest = await db
    .selectFrom('notification_attempts')
    .selectAll()
    .where('notification_id', '=', notificationId)
    .orderBy('attempt_no', 'desc')
    .limit(limit)
    .execute();
  return newest.reverse();
}
