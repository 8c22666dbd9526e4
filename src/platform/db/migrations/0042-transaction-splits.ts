import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// A transaction that divides its net names what divides it: the marketplace membership (from its `marketplace`
// token) or the merchant's event (from its `event` code), never both (decision 042). Fixed at creation, so a
// later suspension or edit does not change where an accepted payment's money goes.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE transactions ADD COLUMN membership_id TEXT REFERENCES ma_memberships (id);
    ALTER TABLE transactions ADD COLUMN event_id TEXT REFERENCES events (id);
    ALTER TABLE transactions ADD CONSTRAINT transactions_one_split CHECK (membership_id IS NULL OR event_id IS NULL);
    CREATE INDEX transactions_event ON transactions (event_id) WHERE event_id IS NOT NULL;
    CREATE INDEX transactions_membership ON transactions (membership_id) WHERE membership_id IS NOT NULL
  `,
  );
}

// Decision 1085: the inverse of the `up`, so a downgrade past this migration leaves the schema the one before it had.
export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP INDEX transactions_membership;
    DROP INDEX transactions_event;
    ALTER TABLE transactions DROP CONSTRAINT transactions_one_split;
    ALTER TABLE transactions DROP COLUMN event_id;
    ALTER TABLE transactions DROP COLUMN membership_id
  `,
  );
}
