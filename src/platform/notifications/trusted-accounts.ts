// The accounts CALLBACK_TRUSTED_ORIGINS names (decision 987) must be accounts of the database a production process
// opens: an id mistyped would leave the origin trusted for nobody, and its owner's callbacks refused one by one,
// ten attempts each, before anyone noticed. Accounts are never deleted, so a name that is no account is a mistake.
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import type { Config } from '../process/config.ts';
import { StartupError } from '../process/startup-error.ts';

/** Refuses the start when a trusted origin names an account the database does not hold (production only). */
export async function assertTrustedAccountsExist(
  db: Kysely<Database>,
  config: Pick<Config, 'mode' | 'callbackTrustedOrigins'>,
): Promise<void> {
  if (config.mode !== 'production') return;
  const named = new Set<string>();
  for (const accounts of config.callbackTrustedOrigins.values())
    if (accounts !== 'every account') for (const id of accounts) named.add(id);
  if (named.size === 0) return;
  const found = new Set(
    (
      await db
        .selectFrom('accounts')
        .select('id')
        .where('id', 'in', [...named])
        .execute()
    ).map((r) => r.id),
  );
  const missing = [...named].filter((id) => !found.has(id));
  if (missing.length > 0)
    throw new StartupError(
      `CALLBACK_TRUSTED_ORIGINS names ${missing.join(', ')}, which this database holds no account of: name the ids \`cobro accounts list\` shows (docs/callbacks.md#where-callbacks-may-go)`,
    );
}
