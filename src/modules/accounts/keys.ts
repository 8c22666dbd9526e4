// API keys (issue 37, decision 540): besides its primary pair (the accounts row), an account may hold keys of a
// narrower scope, each with its own public and private token. A key is revoked at once, or rotated: a new pair
// at once and the old one working for a grace period, then refused. The private token is shown only when made.
import { isKeyScope, type KeyScope } from '../../platform/auth/key-scope.ts';
import { newCredentials, publicTokenHash } from '../../platform/auth/tokens.ts';
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx } from '../../platform/db/types.ts';
import { newId } from '../../platform/ids/ids.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import { keyLimits, limits } from '../../limits/index.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { findAccountRowById } from './repository.ts';
import { findKeyRowById, keyRowsOf, liveKeyCount } from './key-repository.ts';

/** A refusal is a message for the operator (as the accounts service's results). */
export type AccountResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** The id the account's own pair answers to in key lists and on requests (`keyIdOf`). */
export const primaryKeyId = 'primary';

type KeyState = 'active' | 'expiring' | 'expired' | 'revoked';

export interface KeyView {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly scope: KeyScope;
  readonly publicToken: string;
  readonly createdAt: string;
  /** When a key rotated with a grace period stops working, in the service's time zone; null when it has no end. */
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly state: KeyState;
}

export interface NewKey extends KeyView {
  readonly privateToken: string;
}

interface KeyTimes {
  readonly expires_at: Date | null;
  readonly revoked_at: Date | null;
}

function stateOf(row: KeyTimes, now: Date): KeyState {
  if (row.revoked_at !== null) return 'revoked';
  if (row.expires_at === null) return 'active';
  return row.expires_at > now ? 'expiring' : 'expired';
}

type KeyRow = NonNullable<Awaited<ReturnType<typeof findKeyRowById>>>;

function keyView(ctx: AppContext, row: KeyRow): KeyView {
  const zone = ctx.config.timeZone;
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    scope: row.scope,
    publicToken: ctx.secrets.open(row.public_token_enc),
    createdAt: formatTimestamp(row.created_at, zone),
    expiresAt: row.expires_at === null ? null : formatTimestamp(row.expires_at, zone),
    revokedAt: row.revoked_at === null ? null : formatTimestamp(row.revoked_at, zone),
    state: stateOf(row, ctx.clock.now()),
  };
}

/**
 * A rotation's grace, checked: whole hours from 0 (none) to `graceHoursMax`, refused naming the operator's `option`.
 * The old token pair's (`--grace-hours`) and the old webhook secret's (`--webhook-grace-hours`, decision 1000).
 */
export function hoursGraceMs(
  graceHours: number,
  graceHoursMax: number,
  option: string,
): AccountResult<number> {
  if (!Number.isSafeInteger(graceHours) || graceHours < 0 || graceHours > graceHoursMax)
    return { ok: false, error: `${option} must be a whole number from 0 to ${graceHoursMax}` };
  return { ok: true, value: graceHours * keyLimits.graceHourMs };
}

/** The grace a rotation gives the old pair, checked: whole hours from 0 (none: refused at once) to the bound. */
export function graceMs(graceHours: number): AccountResult<number> {
  return hoursGraceMs(graceHours, keyLimits.rotationGraceHoursMax, '--grace-hours');
}

interface KeyToStore {
  readonly accountId: string;
  readonly scope: KeyScope;
  readonly name: string;
  readonly publicToken: string;
  readonly privateToken: string;
  readonly expiresAt: Date | null;
}

/** Writes a key (a new one, or a rotated primary pair living out its grace) and answers it as listed. */
export async function storeKey(ctx: AppContext, db: DbOrTx, key: KeyToStore): Promise<NewKey> {
  const id = newId('key', 17);
  await db
    .insertInto('api_keys')
    .values({
      id,
      account_id: key.accountId,
      name: key.name,
      scope: key.scope,
      public_token_hash: publicTokenHash(key.publicToken),
      public_token_enc: ctx.secrets.seal(key.publicToken),
      private_token_enc: ctx.secrets.seal(key.privateToken),
      created_at: ctx.clock.now(),
      expires_at: key.expiresAt,
    })
    .execute();
  const row = await findKeyRowById(db, id);
  if (row === undefined) throw new Error('key vanished after insert');
  return { ...keyView(ctx, row), privateToken: key.privateToken };
}

export interface KeyRequest {
  readonly accountId: string;
  readonly scope: string;
  readonly name?: string | undefined;
}

/**
 * A key's creation, or why not. `refused` marks the account's state (suspended, or holding its maximum of keys)
 * apart from a request that cannot be valid (scope, name): the CLI exits 1 for the first, 2 for the second
 * (docs/operations.md, decision 1175).
 */
export type KeyCreation =
  | { ok: true; value: NewKey }
  | { ok: false; error: string; refused: boolean };

export async function createKey(
  ctx: AppContext,
  request: KeyRequest,
  db: DbOrTx = ctx.db,
): Promise<KeyCreation> {
  const { accountId, scope } = request;
  if (!isKeyScope(scope))
    return { ok: false, error: '--scope must be one of full, payments, read', refused: false };
  const name = (request.name ?? scope).trim();
  if (name.length === 0 || name.length > keyLimits.keyNameLengthMax)
    return {
      ok: false,
      error: `the name must be 1 to ${keyLimits.keyNameLengthMax} characters`,
      refused: false,
    };
  const account = await findAccountRowById(db, accountId);
  if (account === undefined || account.status !== 'active')
    return { ok: false, error: `no active account with id ${accountId}`, refused: true };
  if ((await liveKeyCount(db, accountId, ctx.clock.now())) >= keyLimits.keysPerAccountMax)
    return {
      ok: false,
      error: `the account already holds ${keyLimits.keysPerAccountMax} keys: revoke one first`,
      refused: true,
    };
  const fresh = newCredentials();
  const key = { accountId, scope, name, ...fresh, expiresAt: null };
  return { ok: true, value: await storeKey(ctx, db, key) };
}

/**
 * The account's primary pair first, then its other keys oldest first (revoked and expired ones included; past the
 * list's bound, the oldest of those that no longer work are left out, never a live one).
 */
export async function listKeys(
  ctx: AppContext,
  accountId: string,
): Promise<AccountResult<readonly KeyView[]>> {
  const account = await findAccountRowById(ctx.db, accountId);
  if (account === undefined) return { ok: false, error: `no account with id ${accountId}` };
  const primary: KeyView = {
    id: primaryKeyId,
    accountId,
    name: 'primary',
    scope: 'full',
    publicToken: ctx.secrets.open(account.public_token_enc),
    createdAt: formatTimestamp(account.created_at, ctx.config.timeZone),
    expiresAt: null,
    revokedAt: null,
    state: 'active',
  };
  const rows = await keyRowsOf(ctx.db, accountId, limits.cliListRowsMax, ctx.clock.now());
  return { ok: true, value: [primary, ...rows.map((r) => keyView(ctx, r))] };
}

/**
 * Refuses the key from now on, in every process (migration 0370's trigger drops what they kept). It forgets what
 * this process kept once its write is done; run inside a caller's transaction, the caller forgets again after its
 * commit (the dashboard's form, the CLI's dispatcher: decision 740), since a request between the two may keep the
 * key's row as it was before the commit.
 */
export async function revokeKey(
  ctx: AppContext,
  keyId: string,
  accountId?: string,
): Promise<AccountResult<KeyView>> {
  if (keyId === primaryKeyId)
    return {
      ok: false,
      error: 'the primary pair is not revoked but rotated: cobro accounts rotate ID',
    };
  const row = await findKeyRowById(ctx.db, keyId);
  if (row === undefined || (accountId !== undefined && row.account_id !== accountId))
    return { ok: false, error: `no key with id ${keyId}` };
  await ctx.db
    .updateTable('api_keys')
    .set({ revoked_at: ctx.clock.now() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .execute();
  ctx.accounts.forgetKept();
  const after = await findKeyRowById(ctx.db, keyId);
  if (after === undefined) throw new Error('key vanished after revoke');
  return { ok: true, value: keyView(ctx, after) };
}

/** A new pair of the same scope and name at once; the old one works `graceHours` more (0: refused at once). */
export async function rotateKey(
  ctx: AppContext,
  keyId: string,
  graceHours: number,
): Promise<AccountResult<NewKey>> {
  const grace = graceMs(graceHours);
  if (!grace.ok) return grace;
  const row = await findKeyRowById(ctx.db, keyId);
  if (row === undefined) return { ok: false, error: `no key with id ${keyId}` };
  const now = ctx.clock.now();
  if (stateOf(row, now) === 'revoked' || stateOf(row, now) === 'expired')
    return { ok: false, error: `key ${keyId} no longer works: create a new one` };
  const fresh = newCredentials();
  const created = await inTransaction(ctx.db, async (tx) => {
    const end = new Date(now.getTime() + grace.value);
    await tx
      .updateTable('api_keys')
      .set(grace.value === 0 ? { revoked_at: now } : { expires_at: end })
      .where('id', '=', keyId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', end)]))
      .execute();
    const key = { accountId: row.account_id, scope: row.scope, name: row.name, ...fresh };
    return storeKey(ctx, tx, { ...key, expiresAt: null });
  });
  ctx.accounts.forgetKept();
  return { ok: true, value: created };
}
