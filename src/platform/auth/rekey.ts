// `cobro secrets rekey` (decision 935): every secret the database holds sealed under COBRO_SECRET_KEY, opened with
// the key it was sealed under and sealed again under a new one, in the caller's ONE transaction: a rekey cut short
// (killed, a value that does not open) leaves every secret under the old key, never some under each.
import { type Kysely, sql } from 'kysely';
import type { Database } from '../db/types.ts';
import type { SecretBox } from './secrets.ts';
import { keyLimits } from '../../limits/index.ts';

/** A column that holds sealed secrets, the table's key to page it by, and which of its values are sealed. */
interface SealedColumn {
  readonly table: string;
  readonly key: string;
  readonly column: string;
  /** The part of the value before the sealed text (a Oneclick card's `oneclick:`); only values with it are sealed. */
  readonly prefix: string;
  /** The rows of a shared table that hold a sealed value (`cobro_meta`'s checkout link key). */
  readonly onlyKey?: string;
}

const whole = (table: string, key: string, column: string): SealedColumn => ({
  table,
  key,
  column,
  prefix: '',
});

/**
 * Every sealed value of the schema. `test/platform/auth/rekey.test.ts` fails when a column named `*_enc` is missing
 * here, so a migration that adds a sealed column must add it here too.
 */
export const sealedColumns: readonly SealedColumn[] = [
  whole('accounts', 'id', 'public_token_enc'),
  whole('accounts', 'id', 'private_token_enc'),
  whole('accounts', 'id', 'webhook_secret_enc'),
  // The webhook secret a rotation retired, signing beside the new one until its grace ends (decision 1000).
  whole('accounts', 'id', 'webhook_secret_previous_enc'),
  whole('api_keys', 'id', 'public_token_enc'),
  whole('api_keys', 'id', 'private_token_enc'),
  whole('account_processors', 'account_id', 'api_key_enc'),
  whole('webpay_keys', 'id', 'api_key_enc'),
  whole('account_oneclick', 'account_id', 'api_key_enc'),
  whole('fintoc_settings', 'account_id', 'secret_key_enc'),
  whole('fintoc_settings', 'account_id', 'webhook_secret_enc'),
  whole('fintoc_settings', 'account_id', 'jws_key_enc'),
  whole('dashboard_users', 'id', 'totp_secret_enc'),
  // A card enrolled through Oneclick keeps Transbank's tbk_user sealed (src/platform/processors/oneclick-processor.ts);
  // a sandbox card's token is not sealed.
  { table: 'su_cards', key: 'id', column: 'processor_token', prefix: 'oneclick:' },
  // The checkout links' signing key (decision 030): sealed, so links already sent stay valid after a rekey.
  { ...whole('cobro_meta', 'key', 'value'), onlyKey: 'checkout_link_key' },
];

export type RekeyOutcome =
  | { readonly ok: true; readonly resealed: number }
  | { readonly ok: false; readonly reason: string };

/** One column's values sealed again, page by page in key order; the count, or the first value `from` cannot open. */
async function resealColumn(
  tx: Kysely<Database>,
  sealed: SealedColumn,
  from: SecretBox,
  to: SecretBox,
): Promise<RekeyOutcome> {
  const { table, key, column, prefix } = sealed;
  const only = sealed.onlyKey === undefined ? sql`TRUE` : sql`${sql.ref(key)} = ${sealed.onlyKey}`;
  let after = '';
  let resealed = 0;
  for (;;) {
    const page = await sql<{ key: string; value: string }>`
      SELECT ${sql.ref(key)} AS key, ${sql.ref(column)} AS value FROM ${sql.table(table)}
      WHERE ${only} AND ${sql.ref(key)} > ${after} AND ${sql.ref(column)} LIKE ${`${prefix}%`}
      ORDER BY ${sql.ref(key)} LIMIT ${keyLimits.rekeyPageRowsMax}`.execute(tx);
    for (const row of page.rows) {
      let plain: string;
      try {
        plain = from.open(row.value.slice(prefix.length));
      } catch {
        return {
          ok: false,
          reason: `${table}.${column} of ${key} ${row.key} does not open with the current key`,
        };
      }
      const again = `${prefix}${to.seal(plain)}`;
      await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${again}
        WHERE ${sql.ref(key)} = ${row.key}`.execute(tx);
      resealed += 1;
    }
    if (page.rows.length < keyLimits.rekeyPageRowsMax) return { ok: true, resealed };
    after = page.rows[page.rows.length - 1]!.key;
  }
}

/**
 * Seals every secret of `sealedColumns` again under `to`, inside `tx`. The caller commits only on `ok`; on a refusal
 * it rolls back, and nothing was changed.
 */
export async function resealSecrets(
  tx: Kysely<Database>,
  from: SecretBox,
  to: SecretBox,
): Promise<RekeyOutcome> {
  let resealed = 0;
  for (const sealed of sealedColumns) {
    const outcome = await resealColumn(tx, sealed, from, to);
    if (!outcome.ok) return outcome;
    resealed += outcome.resealed;
  }
  return { ok: true, resealed };
}
