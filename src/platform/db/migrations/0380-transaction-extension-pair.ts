import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 550 (issue 29 g): the transactions table no longer names its extensions. A transaction's extension is
// the pair `extension` (the extension's name) and `extension_ref` (what it names inside that extension: the
// membership id, the event id), both set or both null, so one row names at most one extension by its shape
// (decision 042's transactions_one_split no longer needs saying). The membership and event ids move into the pair;
// `marketplace`, the token as the merchant sent it, goes: the membership keeps its token, and a row with a token
// but no membership was never a marketplace payment (its extension never owned it).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE transactions ADD COLUMN extension TEXT;
    ALTER TABLE transactions ADD COLUMN extension_ref TEXT;
    UPDATE transactions SET extension = 'marketplace', extension_ref = membership_id WHERE membership_id IS NOT NULL;
    UPDATE transactions SET extension = 'event', extension_ref = event_id WHERE event_id IS NOT NULL;
    ALTER TABLE transactions ADD CONSTRAINT transactions_extension_pair
      CHECK ((extension IS NULL) = (extension_ref IS NULL));
    ALTER TABLE transactions DROP CONSTRAINT transactions_one_split;
    DROP INDEX transactions_event;
    DROP INDEX transactions_membership;
    ALTER TABLE transactions DROP COLUMN membership_id;
    ALTER TABLE transactions DROP COLUMN event_id;
    ALTER TABLE transactions DROP COLUMN marketplace
  `,
  );
}

// Decision 1085: the inverse of the `up`, so a downgrade past this migration leaves the schema the one before it had.
// The pair goes back into the two ids; `marketplace` takes the membership's token (the merchant sent that token).
export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE transactions ADD COLUMN marketplace TEXT;
    ALTER TABLE transactions ADD COLUMN membership_id TEXT REFERENCES ma_memberships (id);
    ALTER TABLE transactions ADD COLUMN event_id TEXT REFERENCES events (id);
    UPDATE transactions t SET membership_id = t.extension_ref, marketplace = m.token
      FROM ma_memberships m WHERE t.extension = 'marketplace' AND m.id = t.extension_ref;
    UPDATE transactions SET event_id = extension_ref WHERE extension = 'event';
    CREATE INDEX transactions_event ON transactions (event_id) WHERE event_id IS NOT NULL;
    CREATE INDEX transactions_membership ON transactions (membership_id) WHERE membership_id IS NOT NULL;
    ALTER TABLE transactions ADD CONSTRAINT transactions_one_split CHECK (membership_id IS NULL OR event_id IS NULL);
    ALTER TABLE transactions DROP CONSTRAINT transactions_extension_pair;
    ALTER TABLE transactions DROP COLUMN extension_ref;
    ALTER TABLE transactions DROP COLUMN extension
  `,
  );
}
