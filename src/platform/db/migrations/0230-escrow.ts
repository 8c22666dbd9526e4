import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Escrow (issue 11 point 6, decision 115, docs/escrow.md): an account flagged `escrow` keeps each paid sale's
// settled part in its `escrow_held` ledger account until POST /api/escrow releases it to the wallet. One row per
// held sale: what entered the hold at settlement, what is still held (refunds take from it), and when it left.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE accounts ADD COLUMN escrow BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE TABLE escrow_holds (
      transaction_id TEXT PRIMARY KEY REFERENCES transactions (id),
      account_id TEXT NOT NULL REFERENCES accounts (id),
      currency TEXT NOT NULL,
      settled_minor BIGINT NOT NULL CHECK (settled_minor >= 0),
      held_minor BIGINT NOT NULL CHECK (held_minor >= 0 AND held_minor <= settled_minor),
      released_minor BIGINT CHECK (released_minor >= 0),
      held_at TIMESTAMPTZ NOT NULL,
      released_at TIMESTAMPTZ,
      CHECK ((released_at IS NULL) = (released_minor IS NULL)),
      CHECK (released_at IS NULL OR held_minor = 0)
    );
    CREATE INDEX escrow_holds_held ON escrow_holds (account_id) WHERE released_at IS NULL
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE escrow_holds;\nALTER TABLE accounts DROP COLUMN escrow;\n');
}
