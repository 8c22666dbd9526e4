// The port through which platform code (authentication, callback signing) asks about merchant accounts without
// importing the accounts module: modules/accounts implements it, runtime.ts wires it into the context.
import type { KeyObject } from 'node:crypto';
import type { KeyScope } from './key-scope.ts';

/** The account a request authenticated as, and the key it used (decision 540). */
export interface AuthenticatedAccount {
  readonly id: string;
  readonly name: string;
  /** The key's id: `primary` for the account's own pair, `key...` for a key made with `cobro keys create`. */
  readonly keyId: string;
  readonly scope: KeyScope;
  readonly privateToken: string;
  /** The private token as a KeyObject, made once per account kept: what the `Sign` header's HMAC is keyed with. */
  readonly signingKey: KeyObject;
  /** Every request must carry a valid Cobro-Signature (decision 140). */
  readonly strictSigning: boolean;
}

/** An account's webhook secrets: the current one, and one a rotation retired with the end of its grace (decision 1000). */
export interface WebhookSecrets {
  readonly current: string;
  /** Null when no rotation left one, or it was rotated with no grace. */
  readonly previous: { readonly secret: string; readonly until: Date } | null;
}

export interface AccountDirectory {
  /** The account whose public token this is, or null (unknown, revoked or expired token, or one rotated away). */
  authenticatePublicToken(publicToken: string): Promise<AuthenticatedAccount | null>;
  /**
   * Drops every account kept in memory (decision 190): called by this process right after it changed one, so its
   * own next request sees the change; other processes learn of it from the database's notification.
   */
  forgetKept(): void;
  /** The account's name (the payer's pages show it), kept in memory as an authenticated account is; null when gone. */
  nameOf(accountId: string): Promise<string | null>;
  /** The secrets callbacks to this account are signed with, the retired one whatever its end; null when gone. */
  webhookSecretsOf(accountId: string): Promise<WebhookSecrets | null>;
}
