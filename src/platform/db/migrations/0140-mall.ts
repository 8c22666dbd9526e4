import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// A mall (reference §5): one payment by the payer for several stores. The mall row holds the payment (one charge
// of the sum); each line is a store's own transaction, created with the mall and moved to success or rejected
// with it, in the same commit (decision 122).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE malls (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      "order" TEXT NOT NULL,
      email TEXT NOT NULL,
      payment INTEGER NOT NULL,
      currency TEXT NOT NULL,
      amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
      status TEXT NOT NULL CHECK (status IN ('pending', 'success', 'rejected')),
      urlreturn TEXT NOT NULL,
      urlnotify TEXT,
      verification_key TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL,
      checkout_opened_at TIMESTAMPTZ,
      attempt_id TEXT,
      attempt_lease_until TIMESTAMPTZ,
      ended_at TIMESTAMPTZ,
      paid_payment INTEGER,
      media TEXT,
      authorization_code TEXT,
      card_last4 TEXT,
      card_type TEXT,
      gateway_message TEXT,
      UNIQUE (account_id, "order")
    );
    CREATE TABLE mall_lines (
      mall_id TEXT NOT NULL REFERENCES malls (id),
      position INTEGER NOT NULL CHECK (position >= 0),
      merchant TEXT NOT NULL,
      store_account_id TEXT NOT NULL REFERENCES accounts (id),
      store_name TEXT NOT NULL,
      transaction_id TEXT NOT NULL UNIQUE REFERENCES transactions (id),
      amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
      subject TEXT NOT NULL,
      event TEXT,
      individual_order TEXT NOT NULL,
      PRIMARY KEY (mall_id, position)
    )
  `,
  );
}

// Decision 1085: the inverse of the `up`, so a downgrade past this migration leaves the schema the one before it had.
export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP TABLE mall_lines;
    DROP TABLE malls
  `,
  );
}
