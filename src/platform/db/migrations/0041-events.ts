import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Events (seed "Event"): the merchant's event with its dates, per-sale service amount and beneficiaries (basis
// points), one row per paid sale with how it divides, and each beneficiary's part of each sale.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE events (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      code TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 40),
      name TEXT NOT NULL,
      date_event_at TIMESTAMPTZ NOT NULL,
      date_event_timed BOOLEAN NOT NULL,
      date_payment_at TIMESTAMPTZ NOT NULL,
      date_payment_timed BOOLEAN NOT NULL,
      closing_sales_at TIMESTAMPTZ NOT NULL,
      url_event TEXT,
      url_logo TEXT,
      service_sale_minor BIGINT NOT NULL CHECK (service_sale_minor BETWEEN 0 AND 9999999),
      currency TEXT,
      payout_status TEXT NOT NULL DEFAULT 'scheduled' CHECK (payout_status IN ('scheduled', 'done')),
      created_at TIMESTAMPTZ NOT NULL,
      CHECK (closing_sales_at <= date_event_at OR NOT date_event_timed),
      CHECK (date_payment_at > date_event_at),
      UNIQUE (account_id, code)
    );
    CREATE INDEX events_payout_due ON events (date_payment_at) WHERE payout_status = 'scheduled';
    CREATE TABLE event_beneficiaries (
      id TEXT PRIMARY KEY,
      event_id TEXT NOT NULL REFERENCES events (id),
      position INTEGER NOT NULL CHECK (position >= 0),
      email TEXT NOT NULL,
      bps INTEGER NOT NULL CHECK (bps BETWEEN 1 AND 10000),
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid')),
      paid_minor BIGINT NOT NULL DEFAULT 0 CHECK (paid_minor >= 0),
      paid_at TIMESTAMPTZ,
      UNIQUE (event_id, position)
    );
    CREATE TABLE event_sales (
      transaction_id TEXT PRIMARY KEY,
      event_id TEXT NOT NULL REFERENCES events (id),
      account_id TEXT NOT NULL REFERENCES accounts (id),
      currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3,6}$'),
      gross_minor BIGINT NOT NULL CHECK (gross_minor > 0),
      fee_minor BIGINT NOT NULL CHECK (fee_minor >= 0),
      net_minor BIGINT NOT NULL CHECK (net_minor >= 0),
      service_sale_minor BIGINT NOT NULL CHECK (service_sale_minor >= 0),
      affiliate_minor BIGINT NOT NULL CHECK (affiliate_minor >= 0),
      sold_at TIMESTAMPTZ NOT NULL,
      settled_at TIMESTAMPTZ,
      CHECK (gross_minor = fee_minor + net_minor),
      CHECK (service_sale_minor + affiliate_minor <= net_minor)
    );
    CREATE INDEX event_sales_event ON event_sales (event_id);
    CREATE TABLE event_sale_shares (
      transaction_id TEXT NOT NULL REFERENCES event_sales (transaction_id),
      beneficiary_id TEXT NOT NULL REFERENCES event_beneficiaries (id),
      amount_minor BIGINT NOT NULL CHECK (amount_minor >= 0),
      PRIMARY KEY (transaction_id, beneficiary_id)
    );
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'DROP TABLE event_sale_shares;\nDROP TABLE event_sales;\nDROP TABLE event_beneficiaries;\nDROP TABLE events;\n',
  );
}
