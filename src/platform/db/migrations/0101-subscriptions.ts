import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Subscriptions (reference §7.6-7.10): a plan linked to a client, its status transitions (logs.status[]), the
// cards enrolled on it (token, brand and last four digits only, never a card number or security code) and the
// enrolment links its hosted page answers to.
export async function up(db: Kysely<any>): Promise<void> {
  await createSubscriptions(db);
  await createCards(db);
  await createCharges(db);
}

/** The subscriptions themselves and their status transitions (logs.status[]). */
async function createSubscriptions(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE su_subscriptions (
      seq BIGSERIAL UNIQUE,
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      client_id TEXT NOT NULL REFERENCES su_clients (id),
      plan_id TEXT NOT NULL REFERENCES su_plans (id),
      status TEXT NOT NULL CHECK (status IN ('register', 'active', 'finish', 'delete', 'cancel', 'suspended')),
      amount_minor BIGINT CHECK (amount_minor > 0),
      coupon TEXT,
      created_at TIMESTAMPTZ NOT NULL,
      activated_at TIMESTAMPTZ,
      ended_at TIMESTAMPTZ,
      next_cycle_at TIMESTAMPTZ,
      cycles_started INTEGER NOT NULL DEFAULT 0 CHECK (cycles_started >= 0)
    );
    CREATE INDEX su_subscriptions_account ON su_subscriptions (account_id, created_at);
    CREATE INDEX su_subscriptions_client ON su_subscriptions (client_id, seq);
    CREATE INDEX su_subscriptions_plan ON su_subscriptions (plan_id, status);
    CREATE INDEX su_subscriptions_due ON su_subscriptions (next_cycle_at) WHERE status = 'active';
    CREATE TABLE su_status_logs (
      seq BIGSERIAL PRIMARY KEY,
      subscription_id TEXT NOT NULL REFERENCES su_subscriptions (id),
      changed_at TIMESTAMPTZ NOT NULL,
      initial_status TEXT,
      final_status TEXT NOT NULL
    );
    CREATE INDEX su_status_logs_subscription ON su_status_logs (subscription_id, seq);
  `,
  );
}

/** The cards enrolled on a subscription and the enrolment links its hosted page answers to. */
async function createCards(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE su_cards (
      seq BIGSERIAL UNIQUE,
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      client_id TEXT NOT NULL REFERENCES su_clients (id),
      subscription_id TEXT NOT NULL REFERENCES su_subscriptions (id),
      brand TEXT NOT NULL,
      last4 TEXT NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
      processor_token TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      deleted_at TIMESTAMPTZ
    );
    CREATE INDEX su_cards_subscription ON su_cards (subscription_id, seq);
    CREATE INDEX su_cards_client ON su_cards (client_id, seq);
    CREATE TABLE su_enrolments (
      token TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      subscription_id TEXT NOT NULL REFERENCES su_subscriptions (id),
      validacion TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      used_at TIMESTAMPTZ,
      card_id TEXT REFERENCES su_cards (id),
      attempt_key TEXT,
      attempt_lease_until TIMESTAMPTZ
    );
    CREATE INDEX su_enrolments_subscription ON su_enrolments (subscription_id);
  `,
  );
}

/** The billing cycles of a subscription and every charge made on it (verification, cycle, consumption). */
async function createCharges(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE su_cycles (
      subscription_id TEXT NOT NULL REFERENCES su_subscriptions (id),
      cycle_number INTEGER NOT NULL CHECK (cycle_number >= 1),
      account_id TEXT NOT NULL REFERENCES accounts (id),
      due_at TIMESTAMPTZ NOT NULL,
      amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
      status TEXT NOT NULL CHECK (status IN ('pending', 'success', 'retry', 'maximum attempt limit', 'canceled by customer', 'canceled by paymaster')),
      try_number INTEGER NOT NULL DEFAULT 0 CHECK (try_number >= 0),
      next_try_at TIMESTAMPTZ,
      attempt_key TEXT,
      attempt_lease_until TIMESTAMPTZ,
      paid_at TIMESTAMPTZ,
      PRIMARY KEY (subscription_id, cycle_number)
    );
    CREATE INDEX su_cycles_due ON su_cycles (next_try_at) WHERE status IN ('pending', 'retry');
    CREATE TABLE su_charges (
      seq BIGSERIAL PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      subscription_id TEXT NOT NULL REFERENCES su_subscriptions (id),
      transaction_id TEXT NOT NULL UNIQUE REFERENCES transactions (id),
      kind TEXT NOT NULL CHECK (kind IN ('verification', 'cycle', 'consumption')),
      cycle_number INTEGER,
      order_ref TEXT NOT NULL,
      description TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX su_charges_subscription ON su_charges (subscription_id, seq);
    CREATE UNIQUE INDEX su_charges_consumption_order ON su_charges (account_id, order_ref) WHERE kind = 'consumption';
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'DROP TABLE su_charges;\nDROP TABLE su_cycles;\nDROP TABLE su_enrolments;\nDROP TABLE su_cards;\nDROP TABLE su_status_logs;\nDROP TABLE su_subscriptions;\n',
  );
}
