// The accounts module's side of the AccountDirectory port: platform code (auth, callback delivery) looks
// accounts up through the context and never imports this module.
import crypto from 'node:crypto';
import type {
  AccountDirectory,
  AuthenticatedAccount,
  WebhookSecrets,
} from '../../platform/auth/account-directory.ts';
import type { ChangeFeed } from '../../platform/db/change-feed.ts';
import { NotifiedCache } from '../../platform/db/notified-cache.ts';
import { limits } from '../../limits/index.ts';
import { publicTokenHash } from '../../platform/auth/tokens.ts';
import type { Db } from '../../platform/db/types.ts';
import type { SecretBox } from '../../platform/auth/secrets.ts';
import type { Clock } from '../../platform/time/clock.ts';
import { findAccountRowById, findAccountRowByTokenHash } from './repository.ts';
import { findKeyByTokenHash } from './key-repository.ts';
import { primaryKeyId } from './keys.ts';

/** What is kept per token: the account and key, and when the key stops working (a rotation's grace). */
interface Kept {
  readonly account: AuthenticatedAccount;
  readonly expiresAt: Date | null;
}

function authenticated(
  row: { id: string; name: string; strict_signing: boolean },
  key: { id: string; scope: AuthenticatedAccount['scope'] },
  privateToken: string,
): AuthenticatedAccount {
  return {
    id: row.id,
    name: row.name,
    keyId: key.id,
    scope: key.scope,
    privateToken,
    signingKey: crypto.createSecretKey(Buffer.from(privateToken, 'utf8')),
    strictSigning: row.strict_signing,
  };
}

/** The account's webhook secrets, the one a rotation retired with the end of its grace (decision 1000). */
async function webhookSecretsOf(
  db: Db,
  secrets: SecretBox,
  accountId: string,
): Promise<WebhookSecrets | null> {
  const row = await findAccountRowById(db, accountId);
  if (row === undefined) return null;
  const { webhook_secret_previous_enc: previous, webhook_secret_previous_until: until } = row;
  return {
    current: secrets.open(row.webhook_secret_enc),
    previous:
      previous === null || until === null ? null : { secret: secrets.open(previous), until },
  };
}

/** The channel migration 0240's trigger notifies when an account's credentials, signing, status or name change. */
const accountChangesChannel = 'cobro_account_changed';

/**
 * With a change feed, an authenticated account is kept in memory (decision 190), so a request's authentication
 * costs no round trip and no decryption; any change to any account drops every kept one. Kept by the token as sent,
 * so a kept token is not hashed either (decision 320): the hash only finds the row. A token that names no account
 * is never kept, and a rotation or a revocation changes the account's or the key's row, which drops every kept
 * token. A key rotated with a grace period is kept with its end, which every request compares with the clock.
 */
export function accountDirectory(
  db: Db,
  secrets: SecretBox,
  changes: ChangeFeed | null,
  clock: Clock,
): AccountDirectory {
  // Both dropped on any change to any account (migration 0240's trigger, a rename included).
  const keptOnFeed = <V>(): NotifiedCache<V> | null =>
    changes === null
      ? null
      : new NotifiedCache<V>(
          changes,
          accountChangesChannel,
          limits.authCacheEntriesMax,
          limits.authCacheEntryAgeMsMax,
        );
  const kept = keptOnFeed<Kept>();
  // Names by account id, for the payer's pages.
  const names = keptOnFeed<string>();
  const nameFromRow = async (accountId: string): Promise<string | null> =>
    (await findAccountRowById(db, accountId))?.name ?? null;
  const lookUp = async (hash: string): Promise<Kept | null> => {
    const row = await findAccountRowByTokenHash(db, hash);
    if (row !== undefined) {
      const primary = { id: primaryKeyId, scope: 'full' as const };
      return {
        account: authenticated(row, primary, secrets.open(row.private_token_enc)),
        expiresAt: null,
      };
    }
    const key = await findKeyByTokenHash(db, hash);
    if (key === undefined) return null;
    const privateToken = secrets.open(key.private_token_enc);
    return {
      account: authenticated(key, { id: key.key_id, scope: key.scope }, privateToken),
      expiresAt: key.expires_at,
    };
  };
  const live = (found: Kept | null): AuthenticatedAccount | null =>
    found === null || (found.expiresAt !== null && found.expiresAt <= clock.now())
      ? null
      : found.account;
  return {
    async authenticatePublicToken(publicToken) {
      if (kept === null) return live(await lookUp(publicTokenHash(publicToken)));
      return live(
        kept.peek(publicToken) ??
          (await kept.get(publicToken, () => lookUp(publicTokenHash(publicToken)))),
      );
    },
    forgetKept() {
      kept?.forget();
      names?.forget();
    },
    async nameOf(accountId) {
      if (names === null) return nameFromRow(accountId);
      return names.peek(accountId) ?? (await names.get(accountId, () => nameFromRow(accountId)));
    },
    webhookSecretsOf: (accountId) => webhookSecretsOf(db, secrets, accountId),
  };
}
