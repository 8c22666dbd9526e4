import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Every payment attempt a payer makes on the checkout, approved or declined (issue 15 point 5): a declined card,
// a wrong CVV or bank password leaves the transaction pending until the attempts limit, and each try is kept
// here. Card data never reaches this table: only brand and last four digits, as on the transaction.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE payment_attempts (
      id TEXT PRIMARY KEY,
      transaction_id TEXT NOT NULL REFERENCES transactions (id),
      number INTEGER NOT NULL CHECK (number > 0),
      payment INTEGER NOT NULL,
      media TEXT NOT NULL,
      outcome TEXT NOT NULL CHECK (outcome IN ('approved', 'declined')),
      gateway_message TEXT NOT NULL,
      payer_message TEXT,
      card_brand TEXT,
      card_last4 TEXT CHECK (card_last4 ~ '^[0-9]{4}$'),
      payer_ip TEXT,
      created_at TIMESTAMPTZ NOT NULL,
      UNIQUE (transaction_id, number)
    )
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE payment_attempts');
}
