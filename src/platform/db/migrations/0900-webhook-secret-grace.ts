import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 1000: a rotated webhook secret keeps signing callbacks beside the new one for a grace period, so a
// merchant's verifier can move to the new secret at any time within it. The retired secret is sealed like the
// current one (`cobro secrets rekey` reseals it) and kept, with the end of its grace, until the next rotation
// replaces it; a rotation with no grace sets both null. Signing reads the end, so a grace that is over signs nothing.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE accounts ADD COLUMN webhook_secret_previous_enc TEXT;
    ALTER TABLE accounts ADD COLUMN webhook_secret_previous_until TIMESTAMPTZ;
    ALTER TABLE accounts ADD CONSTRAINT accounts_webhook_secret_previous_whole
      CHECK ((webhook_secret_previous_enc IS NULL) = (webhook_secret_previous_until IS NULL))
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE accounts DROP CONSTRAINT accounts_webhook_secret_previous_whole;
    ALTER TABLE accounts DROP COLUMN webhook_secret_previous_until;
    ALTER TABLE accounts DROP COLUMN webhook_secret_previous_enc
  `,
  );
}
