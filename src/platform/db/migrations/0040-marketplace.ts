import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Marketplace (seed "Marketplace"): clients with bank accounts, memberships that split a payment among them by
// basis points, and one share row per client per paid marketplace transaction whose status follows the money.
const marketplaceTables = `
    CREATE TABLE ma_clients (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      status TEXT NOT NULL CHECK (status IN ('register', 'suspended')),
      name TEXT NOT NULL,
      phone TEXT NOT NULL,
      email TEXT NOT NULL,
      bank_sbif TEXT NOT NULL,
      bank_type SMALLINT NOT NULL CHECK (bank_type BETWEEN 1 AND 3),
      bank_num TEXT NOT NULL,
      bank_rut TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ
    );
    CREATE INDEX ma_clients_account ON ma_clients (account_id, created_at);
    CREATE TABLE ma_memberships (
      seq BIGSERIAL UNIQUE,
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      status TEXT NOT NULL CHECK (status IN ('register', 'suspended')),
      name TEXT NOT NULL,
      token TEXT NOT NULL UNIQUE,
      merchant_bps INTEGER NOT NULL CHECK (merchant_bps BETWEEN 0 AND 10000),
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ
    );
    CREATE INDEX ma_memberships_account ON ma_memberships (account_id, created_at);
    CREATE TABLE ma_membership_clients (
      membership_id TEXT NOT NULL REFERENCES ma_memberships (id),
      client_id TEXT NOT NULL REFERENCES ma_clients (id),
      position INTEGER NOT NULL CHECK (position >= 0),
      bps INTEGER NOT NULL CHECK (bps BETWEEN 1 AND 10000),
      PRIMARY KEY (membership_id, client_id),
      UNIQUE (membership_id, position)
    );
    CREATE INDEX ma_membership_clients_client ON ma_membership_clients (client_id);
    CREATE TABLE ma_payments (
      transaction_id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      membership_id TEXT NOT NULL REFERENCES ma_memberships (id),
      currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3,6}$'),
      net_minor BIGINT NOT NULL CHECK (net_minor >= 0),
      merchant_minor BIGINT NOT NULL CHECK (merchant_minor >= 0),
      created_at TIMESTAMPTZ NOT NULL,
      settled_at TIMESTAMPTZ
    );
    CREATE TABLE ma_payment_shares (
      transaction_id TEXT NOT NULL REFERENCES ma_payments (transaction_id),
      client_id TEXT NOT NULL REFERENCES ma_clients (id),
      membership_id TEXT NOT NULL REFERENCES ma_memberships (id),
      account_id TEXT NOT NULL REFERENCES accounts (id),
      currency TEXT NOT NULL,
      bps INTEGER NOT NULL CHECK (bps BETWEEN 1 AND 10000),
      amount_minor BIGINT NOT NULL CHECK (amount_minor >= 0),
      status TEXT NOT NULL CHECK (status IN ('pending', 'liquidate', 'pending for deposit', 'paid')),
      deposit_due_at TIMESTAMPTZ,
      created_at TIMESTAMPTZ NOT NULL,
      liquidated_at TIMESTAMPTZ,
      deposit_started_at TIMESTAMPTZ,
      paid_at TIMESTAMPTZ,
      PRIMARY KEY (transaction_id, client_id)
    );
    CREATE INDEX ma_payment_shares_client ON ma_payment_shares (client_id, membership_id);
    CREATE INDEX ma_payment_shares_due ON ma_payment_shares (deposit_due_at) WHERE status IN ('liquidate', 'pending for deposit');
  `;

export async function up(db: Kysely<any>): Promise<void> {
  await runSql(db, marketplaceTables);
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'DROP TABLE ma_payment_shares;\nDROP TABLE ma_payments;\nDROP TABLE ma_membership_clients;\nDROP TABLE ma_memberships;\nDROP TABLE ma_clients;\n',
  );
}
