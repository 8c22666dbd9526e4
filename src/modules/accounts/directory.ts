// The accounts module's side of the AccountDirectory port: platform code (auth, callback delivery) looks
// accounts up through the context and never imports this module.
import type { AccountDirectory } from '../../platform/auth/account-directory.ts';
import { publicTokenHash } from '../../platform/auth/tokens.ts';
import type { Db } from '../../platform/db/types.ts';
import type { SecretBox } from '../../platform/secrets.ts';
import { findAccountRowById, findAccountRowByTokenHash } from './repository.ts';

export function accountDirectory(db: Db, secrets: SecretBox): AccountDirectory {
  return {
    async authenticatePublicToken(publicToken) {
      const row = await findAccountRowByTokenHash(db, publicTokenHash(publicToken));
      if (row === undefined) return null;
      return { id: row.id, name: row.name, privateToken: secrets.open(row.private_token_enc), strictSigning: row.strict_signing };
    },
    async webhookSecretOf(accountId) {
      const row = await findAccountRowById(db, accountId);
      return row === undefined ? null : secrets.open(row.webhook_secret_enc);
    },
  };
}
