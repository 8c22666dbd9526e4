import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 720: `cobro wallet credit --key K` names an operator's credit, so running the same command again (after a
// kill, or by mistake) finds the credit instead of crediting the wallet twice. One row per keyed credit, written in
// the credit's transaction, unique per account; it keeps what the credit was (to refuse the key with another amount
// or currency) and what it answered (to print it again).
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE wallet_credit_keys (
      account_id TEXT NOT NULL,
      operator_key TEXT NOT NULL,
      credit_id TEXT NOT NULL,
      movement_id TEXT NOT NULL,
      currency TEXT NOT NULL,
      amount_minor BIGINT NOT NULL CHECK (amount_minor > 0),
      balance_after_minor BIGINT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      PRIMARY KEY (account_id, operator_key)
    );
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(db, 'DROP TABLE wallet_credit_keys;');
}
