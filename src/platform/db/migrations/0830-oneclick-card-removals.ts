import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 990: a card's Oneclick inscription is deleted at Transbank once no subscription of Cobro's can charge it.
// The removal is recorded in the transaction that ends the subscription (or deletes the card or the client) and a
// due-work handler sends Transbank's delete outside any transaction, retrying with backoff a bounded number of
// times. `due_at` null is due at once; a claimed try moves it forward, so a worker that dies mid-call leaves the
// removal due again after the backoff. Cards of subscriptions ended before this migration are queued here too.
// An inscription being finished is `finishing` under a lease (it read `failed` while at Transbank): a second return
// of the same TBK_TOKEN waits for it instead of telling the payer it failed, and a finisher that died is taken over
// once its lease has run out.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE oneclick_card_removals (
      card_id TEXT PRIMARY KEY REFERENCES su_cards (id),
      account_id TEXT NOT NULL REFERENCES accounts (id),
      state TEXT NOT NULL CHECK (state IN ('due', 'done', 'kept', 'given_up')),
      tries INTEGER NOT NULL DEFAULT 0 CHECK (tries >= 0),
      due_at TIMESTAMPTZ,
      last_error TEXT,
      created_at TIMESTAMPTZ NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX oneclick_card_removals_due ON oneclick_card_removals (due_at) WHERE state = 'due';
    INSERT INTO oneclick_card_removals (card_id, account_id, state, created_at, updated_at)
      SELECT c.id, c.account_id, 'due', now(), now()
        FROM su_cards c JOIN su_subscriptions s ON s.id = c.subscription_id
       WHERE c.deleted_at IS NULL
         AND c.processor_token LIKE 'oneclick:%'
         AND s.status IN ('finish', 'delete', 'cancel');
    ALTER TABLE oneclick_inscriptions DROP CONSTRAINT oneclick_inscriptions_state_check;
    ALTER TABLE oneclick_inscriptions ADD CONSTRAINT oneclick_inscriptions_state_check
      CHECK (state IN ('started', 'finishing', 'finished', 'failed'));
    ALTER TABLE oneclick_inscriptions ADD COLUMN lease_until TIMESTAMPTZ
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    UPDATE oneclick_inscriptions SET state = 'failed' WHERE state = 'finishing';
    ALTER TABLE oneclick_inscriptions DROP COLUMN lease_until;
    ALTER TABLE oneclick_inscriptions DROP CONSTRAINT oneclick_inscriptions_state_check;
    ALTER TABLE oneclick_inscriptions ADD CONSTRAINT oneclick_inscriptions_state_check
      CHECK (state IN ('started', 'finished', 'failed'));
    DROP TABLE oneclick_card_removals
  `,
  );
}
