import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 1105: a Oneclick card removal counts Transbank's refusals apart from its tries. `tries` stays the count
// of claims (the backoff's exponent and the fence against a late answer, decision 990); `refusals` counts the tries
// Transbank answered with a refusal, so the rest (busy answers, no answer) are `tries - refusals`. A removal is given
// up after cardRemovalTriesMax refusals or cardRemovalBusyTriesMax busy tries. The tries made before this migration
// are not known apart and count as busy.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE oneclick_card_removals ADD COLUMN refusals INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE oneclick_card_removals ADD CONSTRAINT oneclick_card_removals_refusals_within_tries
      CHECK (refusals >= 0 AND refusals <= tries)
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE oneclick_card_removals DROP CONSTRAINT oneclick_card_removals_refusals_within_tries;
    ALTER TABLE oneclick_card_removals DROP COLUMN refusals
  `,
  );
}
