// SQL of subscription clients and plans. Every read is scoped to the merchant account that owns the rows.
import { sql } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import { subscriptionLimits } from '../../limits/index.ts';
import './types.ts';

/**
 * A live client by id (`cl...`) or, when the key holds an `@`, by e-mail in any case (reference §7.2, decision 910).
 * Of twins kept by migration 0740, the one spelled exactly as the key, else the oldest.
 */
export async function findClient(db: DbOrTx, accountId: string, key: string) {
  const q = db
    .selectFrom('su_clients')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null);
  if (!key.includes('@')) return q.where('id', '=', key).executeTakeFirst();
  return q
    .where(sql`lower(email)`, '=', sql`lower(${key})`)
    .orderBy(sql`email = ${key}`, 'desc')
    .orderBy('email_twin')
    .limit(1)
    .executeTakeFirst();
}

export type ClientRow = NonNullable<Awaited<ReturnType<typeof findClient>>>;

/**
 * `= ANY(ids)` with the ids as one array parameter: the statement's text is the same for any count of ids, so it is
 * prepared once (decision 230), where `IN ($1, ..., $n)` would be a new statement for each n.
 */
export const anyText = (ids: readonly string[]) => sql<string>`ANY(${[...ids]}::text[])`;

/** Clients by id, deleted ones included (a subscription's history keeps its client). */
export async function clientsByIds(db: DbOrTx, ids: readonly string[]) {
  return db.selectFrom('su_clients').selectAll().where('id', '=', anyText(ids)).execute();
}

export async function listClients(
  db: DbOrTx,
  accountId: string,
  range: { from: Date; before: Date },
  page: { offset: number; size: number },
) {
  return db
    .selectFrom('su_clients')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('created_at', '>=', range.from)
    .where('created_at', '<', range.before)
    .orderBy('seq')
    .offset(page.offset)
    .limit(page.size)
    .execute();
}

export async function findPlan(db: DbOrTx, accountId: string, id: string) {
  return db
    .selectFrom('su_plans')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export type PlanRow = NonNullable<Awaited<ReturnType<typeof findPlan>>>;

export async function plansByIds(db: DbOrTx, accountId: string, ids: readonly string[]) {
  return db
    .selectFrom('su_plans')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', anyText(ids))
    .execute();
}

export async function listPlans(db: DbOrTx, accountId: string) {
  return db
    .selectFrom('su_plans')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('seq')
    .limit(subscriptionLimits.plansListedMax)
    .execute();
}
