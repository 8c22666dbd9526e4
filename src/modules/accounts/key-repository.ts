// The api_keys table (migration 0370, decision 540): an account's keys besides its primary pair.
import type { KeyScope } from '../../platform/auth/key-scope.ts';
import type { DbOrTx, Timestamp } from '../../platform/db/types.ts';
import type { ColumnType } from 'kysely';

interface ApiKeyTable {
  id: string;
  account_id: string;
  name: string;
  scope: KeyScope;
  public_token_hash: string;
  public_token_enc: string;
  private_token_enc: string;
  created_at: Timestamp;
  /** When a pair rotated with a grace period stops working; null while it has no end. */
  expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    api_keys: ApiKeyTable;
  }
}

/** A live key's row with its account's, by the public token's hash: not revoked, its account active. */
export async function findKeyByTokenHash(db: DbOrTx, hash: string) {
  return db
    .selectFrom('api_keys as k')
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select([
      'k.id as key_id',
      'k.scope',
      'k.private_token_enc',
      'k.expires_at',
      'a.id',
      'a.name',
      'a.strict_signing',
    ])
    .where('k.public_token_hash', '=', hash)
    .where('k.revoked_at', 'is', null)
    .where('a.status', '=', 'active')
    .executeTakeFirst();
}

export async function findKeyRowById(db: DbOrTx, id: string) {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The account's keys oldest first, at most `rowsMax`: every key still working (at most keysPerAccountMax), then the
 * newest of those that no longer work. Rotations leave a revoked or expired row each, and after enough of them an
 * oldest-first cut hid the newest live keys from every list (decision 835).
 */
export async function keyRowsOf(db: DbOrTx, accountId: string, rowsMax: number, now: Date) {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy(
      (eb) =>
        eb.and([
          eb('revoked_at', 'is', null),
          eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]),
        ]),
      'desc',
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(rowsMax)
    .execute();
  return rows.sort(
    (a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1),
  );
}

/** Keys that still work or will: not revoked, not expired at `now`. */
export async function liveKeyCount(db: DbOrTx, accountId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Keys still working that stop before `until`: a rotation's grace running out, soonest first. */
export async function expiringKeysOf(
  db: DbOrTx,
  accountId: string,
  now: Date,
  until: Date,
  rowsMax: number,
) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'name', 'expires_at'])
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where('expires_at', '<=', until)
    .orderBy('expires_at')
    .limit(rowsMax)
    .execute();
}
