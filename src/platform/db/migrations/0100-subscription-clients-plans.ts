import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Subscriptions (reference §7, §8), first part: the merchant's subscription clients and plans with Cobro's
// pricing extension (decision 100). A deleted client keeps its row for its subscriptions' history; an e-mail is
// unique among an account's live clients, so GET /api/suclient/{email} names one client.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE su_clients (
      seq BIGSERIAL UNIQUE,
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      email TEXT NOT NULL,
      name TEXT NOT NULL,
      rut TEXT,
      phone TEXT NOT NULL,
      address TEXT,
      country TEXT,
      region TEXT,
      city TEXT,
      postal_code TEXT,
      additional_parameters TEXT,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ,
      deleted_at TIMESTAMPTZ
    );
    CREATE UNIQUE INDEX su_clients_live_email ON su_clients (account_id, email) WHERE deleted_at IS NULL;
    CREATE INDEX su_clients_account ON su_clients (account_id, created_at);
    CREATE TABLE su_plans (
      seq BIGSERIAL UNIQUE,
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      status TEXT NOT NULL CHECK (status IN ('active')),
      name TEXT NOT NULL,
      code TEXT NOT NULL,
      description TEXT NOT NULL,
      url_notify_suscription TEXT NOT NULL,
      url_notify_payment TEXT NOT NULL,
      url_success_payment TEXT NOT NULL,
      url_failed_payment TEXT NOT NULL,
      type TEXT NOT NULL CHECK (type IN ('fixed', 'variable', 'consumption')),
      amount_minor BIGINT CHECK (amount_minor > 0),
      currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3,6}$'),
      interval_unit TEXT NOT NULL CHECK (interval_unit IN ('day', 'week', 'month', 'year')),
      interval_count INTEGER NOT NULL CHECK (interval_count >= 1),
      trial_days INTEGER NOT NULL CHECK (trial_days >= 0),
      retries_max INTEGER NOT NULL CHECK (retries_max >= 0),
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ,
      CHECK (type <> 'fixed' OR amount_minor IS NOT NULL)
    );
    CREATE INDEX su_plans_account ON su_plans (account_id, seq);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE su_plans;\nDROP TABLE su_clients;\n');
}
