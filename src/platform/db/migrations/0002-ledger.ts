import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Double-entry ledger. A ledger account is (owner, code, currency); its balance is the sum of its postings,
// cached in balance_minor and updated in the same transaction as each posting. `cobro ledger verify` recomputes it.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE ledger_accounts (
      id BIGSERIAL PRIMARY KEY,
      owner TEXT NOT NULL,
      code TEXT NOT NULL,
      currency TEXT NOT NULL CHECK (currency ~ '^[A-Z]{3,6}$'),
      balance_minor BIGINT NOT NULL DEFAULT 0,
      non_negative BOOLEAN NOT NULL,
      CHECK (NOT non_negative OR balance_minor >= 0),
      UNIQUE (owner, code, currency)
    );
    CREATE TABLE journal_entries (
      id TEXT PRIMARY KEY,
      kind TEXT NOT NULL,
      reference TEXT NOT NULL,
      memo TEXT NOT NULL DEFAULT '',
      created_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX journal_entries_reference ON journal_entries (reference);
    CREATE TABLE postings (
      id BIGSERIAL PRIMARY KEY,
      journal_id TEXT NOT NULL REFERENCES journal_entries (id),
      ledger_account_id BIGINT NOT NULL REFERENCES ledger_accounts (id),
      currency TEXT NOT NULL,
      amount_minor BIGINT NOT NULL CHECK (amount_minor <> 0),
      balance_after_minor BIGINT NOT NULL
    );
    CREATE INDEX postings_journal ON postings (journal_id);
    CREATE INDEX postings_account ON postings (ledger_account_id, id);
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    'DROP TABLE postings;\nDROP TABLE journal_entries;\nDROP TABLE ledger_accounts;\n',
  );
}
