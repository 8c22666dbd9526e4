import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 130: the system's shared accounts (owner 'system': processor clearing, bank clearing, fees, ...) keep
// no cached balance and no running balance per posting; their balance is the sum of their postings. Existing
// rows are rewritten to that shape; `cobro ledger verify` proves the rest as before.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE postings ALTER COLUMN balance_after_minor DROP NOT NULL;
    UPDATE postings SET balance_after_minor = NULL
      WHERE ledger_account_id IN (SELECT id FROM ledger_accounts WHERE owner = 'system');
    UPDATE ledger_accounts SET balance_minor = 0 WHERE owner = 'system';
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    UPDATE ledger_accounts a SET balance_minor = COALESCE((SELECT SUM(amount_minor) FROM postings p WHERE p.ledger_account_id = a.id), 0)
      WHERE owner = 'system';
    UPDATE postings p SET balance_after_minor = (SELECT SUM(q.amount_minor) FROM postings q
      WHERE q.ledger_account_id = p.ledger_account_id AND q.id <= p.id) WHERE balance_after_minor IS NULL;
    ALTER TABLE postings ALTER COLUMN balance_after_minor SET NOT NULL;
  `,
  );
}
