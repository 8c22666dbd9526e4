// The accounts module's side of the AccountDirectory port: platform code (auth, callback delivery) looks
// accounts up through the context and never imports this module.
import crypto from 'node:crypto';
import type {
  AccountDirectory,
  AuthenticatedAccount,
} from '../../platform/auth/account-directory.ts';
import type { ChangeFeed } from '../../platform/db/change-feed.ts';
import { NotifiedCache } from '../../platform/db/notified-cache.ts';
import { limits } from '../../limits/index.ts';
import { publicTokenHash } from '../../platform/auth/tokens.ts';
import type { Db } from '../../platform/db/types.ts';
import type { SecretBox } from '../../platform/auth/secrets.ts';
import { findAccountRowById, findAccountRowByTokenHash } from './repository.ts';

/** The channel migration 0240's trigger notifies when an account's credentials, signing, status or name change. */
const accountChangesChannel = 'cobro_account_changed';

/**
 * With a change feed, an authenticated account is kept in memory (decision 190), so a request's authentication
 * costs no round trip and no decryption; any change to any account drops every kept one. Kept by the token as sent,
 * so a kept token is not hashed either (decision 320): the hash only finds the row. A token that names no account
 * is never kept, and a rotation or a revocation changes the account's row, which drops every kept token.
 */
export function accountDirectory(
  db: Db,
  secrets: SecretBox,
  changes: ChangeFeed | null,
): AccountDirectory {
  const kept =
    changes === null
      ? null
      : new NotifiedCache<AuthenticatedAccount>(
          changes,
          accountChangesChannel,
          limits.authCacheEntriesMax,
          limits.authCacheEntryAgeMsMax,
        );
  const lookUp = async (hash: string): Promise<AuthenticatedAccount | null> => {
    const row = await findAccountRowByTokenHash(db, hash);
    if (row === undefined) return null;
    const privateToken = secrets.open(row.private_token_enc);
    return {
      id: row.id,
      name: row.name,
      privateToken,
      signingKey: crypto.createSecretKey(Buffer.from(privateToken, 'utf8')),
      strictSigning: row.strict_signing,
    };
  };
  return {
    async authenticatePublicToken(publicToken) {
      if (kept === null) return lookUp(publicTokenHash(publicToken));
      return (
        kept.peek(publicToken) ?? kept.get(publicToken, () => lookUp(publicTokenHash(publicToken)))
      );
    },
    forgetKept() {
      kept?.forget();
    },
    async webhookSecretOf(accountId) {
      const row = await findAccountRowById(db, accountId);
      return row === undefined ? null : secrets.open(row.webhook_secret_enc);
    },
  };
}
