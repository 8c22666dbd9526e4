import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 865: a Fintoc transfer the receiving bank sent back (Fintoc's `returned`, decision 830) is `returned`,
// so `cobro fintoc reconcile` expects its two movements, the payment and its return. A transfer already returned
// under decision 830 kept `succeeded`: its payout's `payout.returned` or `withdrawal.returned` journal names it.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE fintoc_transfers DROP CONSTRAINT fintoc_transfers_state_check;
    ALTER TABLE fintoc_transfers ADD CONSTRAINT fintoc_transfers_state_check
      CHECK (state IN ('sending', 'sent', 'succeeded', 'failed', 'unresolved', 'returned'));
    UPDATE fintoc_transfers SET state = 'returned'
      WHERE state = 'succeeded'
        AND EXISTS (SELECT 1 FROM journal_entries j
                    WHERE j.reference = fintoc_transfers.payout_id
                      AND j.kind IN ('payout.returned', 'withdrawal.returned'));
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    UPDATE fintoc_transfers SET state = 'succeeded' WHERE state = 'returned';
    ALTER TABLE fintoc_transfers DROP CONSTRAINT fintoc_transfers_state_check;
    ALTER TABLE fintoc_transfers ADD CONSTRAINT fintoc_transfers_state_check
      CHECK (state IN ('sending', 'sent', 'succeeded', 'failed', 'unresolved'));
  `,
  );
}
