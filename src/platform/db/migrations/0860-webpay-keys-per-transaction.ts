import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 996: a Webpay Plus transaction lives under the commerce code and host that created it, and only that
// commerce's API key commits, reads or refunds it. Every set of Webpay keys an account was given is kept (the API
// key sealed, as in account_processors), and each Webpay session names the keys that created it, so a change of the
// account's keys no longer strands a payer coming back from Transbank nor refuses the refund of an earlier sale.
// Sessions created before this migration name none: they keep using the account's current keys.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE webpay_keys (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      commerce_code TEXT NOT NULL,
      environment TEXT NOT NULL,
      api_key_enc TEXT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL,
      UNIQUE (account_id, commerce_code, environment)
    );
    INSERT INTO webpay_keys (id, account_id, commerce_code, environment, api_key_enc, updated_at)
      SELECT 'wpk' || substr(md5(account_id || ' ' || commerce_code || ' ' || environment), 1, 20),
        account_id, commerce_code, environment, api_key_enc, updated_at
      FROM account_processors;
    ALTER TABLE processor_sessions ADD COLUMN webpay_keys_id TEXT REFERENCES webpay_keys (id)
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    ALTER TABLE processor_sessions DROP COLUMN webpay_keys_id;
    DROP TABLE webpay_keys
  `,
  );
}
