// SQL of the marketplace. Every read is scoped to the merchant account that owns the rows.
import { sql } from 'kysely';
import type { DbOrTx } from '../../platform/db/types.ts';
import { marketplaceLimits } from '../../limits/index.ts';
import './types.ts';

export async function findClient(db: DbOrTx, accountId: string, id: string) {
  return db
    .selectFrom('ma_clients')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * The client's row locked for an update in this transaction: a concurrent update waits for it, then reads the bank
 * account this one wrote, so each destination change logs as `previous` the account it replaced (decision 815).
 */
export async function findClientForUpdate(tx: DbOrTx, accountId: string, id: string) {
  return tx
    .selectFrom('ma_clients')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

export type ClientRow = NonNullable<Awaited<ReturnType<typeof findClient>>>;

export async function countClientMemberships(db: DbOrTx, clientId: string): Promise<number> {
  const row = await db
    .selectFrom('ma_membership_clients')
    .select(sql<string>`COUNT(*)::text`.as('n'))
    .where('client_id', '=', clientId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The memberships that name the client, oldest first, with both percentages. */
export async function clientMembershipDetails(db: DbOrTx, clientId: string) {
  return db
    .selectFrom('ma_membership_clients as mc')
    .innerJoin('ma_memberships as m', 'm.id', 'mc.membership_id')
    .select(['m.id', 'm.status', 'm.token', 'm.name', 'm.merchant_bps', 'mc.bps'])
    .where('mc.client_id', '=', clientId)
    .orderBy('m.seq')
    .limit(marketplaceLimits.detailsPerClientMax)
    .execute();
}

/** Which share states the client has in each membership (at most four per membership). */
export async function clientShareStates(db: DbOrTx, clientId: string) {
  return db
    .selectFrom('ma_payment_shares')
    .select(['membership_id', 'status'])
    .where('client_id', '=', clientId)
    .groupBy(['membership_id', 'status'])
    .execute();
}

export async function findMembership(db: DbOrTx, accountId: string, id: string) {
  return db
    .selectFrom('ma_memberships')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findMembershipByToken(db: DbOrTx, accountId: string, token: string) {
  return db
    .selectFrom('ma_memberships')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('token', '=', token)
    .executeTakeFirst();
}

export type MembershipRow = NonNullable<Awaited<ReturnType<typeof findMembership>>>;

/** The membership's clients in the order the merchant listed them, with their names and states. */
export async function membershipClients(db: DbOrTx, membershipId: string) {
  return db
    .selectFrom('ma_membership_clients as mc')
    .innerJoin('ma_clients as c', 'c.id', 'mc.client_id')
    .select(['c.id', 'c.name', 'c.status', 'mc.bps'])
    .where('mc.membership_id', '=', membershipId)
    .orderBy('mc.position')
    .execute();
}
