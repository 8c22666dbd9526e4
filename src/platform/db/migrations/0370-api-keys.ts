import type { Kysely } from 'kysely';
import { runSql } from '../run-sql.ts';

// Decision 540: an account holds more keys than its primary pair (kept in accounts as before), each with a scope,
// and a pair rotated with a grace period lives on here until its expiry. The public token is found by its hash and
// both tokens are sealed, as the account's own are. A change to a key notifies the channel of migration 0240, so
// every process drops the keys it kept and a revoked key is refused at once.
export async function up(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id),
      name TEXT NOT NULL,
      scope TEXT NOT NULL CHECK (scope IN ('read', 'payments', 'full')),
      public_token_hash TEXT NOT NULL UNIQUE,
      public_token_enc TEXT NOT NULL,
      private_token_enc TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL,
      expires_at TIMESTAMPTZ,
      revoked_at TIMESTAMPTZ
    );
    CREATE INDEX api_keys_account ON api_keys (account_id, created_at);
    CREATE FUNCTION cobro_api_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_notify('cobro_account_changed', OLD.account_id); RETURN NULL; END $$;
    CREATE TRIGGER api_keys_changed AFTER UPDATE OR DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION cobro_api_key_changed()
  `,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await runSql(
    db,
    `
    DROP TABLE api_keys;
    DROP FUNCTION cobro_api_key_changed()
  `,
  );
}
