import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Subscription charges (issue 10 parts 5-6): each names the card it was made on, and its row is written before
// the payment's `transactions` row in the same database transaction, so two requests with one `order` meet on
// the unique order index before either creates a payment (the foreign key is checked at commit).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE su_charges ADD COLUMN card_id TEXT REFERENCES su_cards (id);
    ALTER TABLE su_charges ALTER CONSTRAINT su_charges_transaction_id_fkey DEFERRABLE INITIALLY DEFERRED;
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'ALTER TABLE su_charges ALTER CONSTRAINT su_charges_transaction_id_fkey NOT DEFERRABLE;\nALTER TABLE su_charges DROP COLUMN card_id;\n',
  );
}
