// Merchant accounts and their credentials. Tokens are shown when created, rotated or asked for by an operator.
import { newCredentials, publicTokenHash, type Credentials } from '../../platform/auth/tokens.ts';
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import { newId } from '../../platform/ids/ids.ts';
import { keyLimits, limits } from '../../limits/index.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { findAccountRowById } from './repository.ts';
import { graceMs, storeKey } from './keys.ts';
import { giveSandboxBankAccount } from './sandbox-bank-account.ts';
import {
  graceRuns,
  graceUnderWayRefusal,
  retiringColumns,
  webhookGraceMs,
} from './webhook-secret-grace.ts';

export interface AccountView extends Credentials {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly createdAt: string;
  /** While a rotated webhook secret still signs beside the current one: when it stops (decision 1000); else null. */
  readonly webhookSecretPreviousUntil: string | null;
}

export type AccountResult<T> = { ok: true; value: T } | { ok: false; error: string };

type Row = NonNullable<Awaited<ReturnType<typeof findAccountRowById>>>;

function view(ctx: AppContext, row: Row): AccountView {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    createdAt: formatTimestamp(row.created_at, ctx.config.timeZone),
    publicToken: ctx.secrets.open(row.public_token_enc),
    privateToken: ctx.secrets.open(row.private_token_enc),
    webhookSecret: ctx.secrets.open(row.webhook_secret_enc),
    webhookSecretPreviousUntil: graceRuns(row.webhook_secret_previous_until, ctx.clock.now())
      ? formatTimestamp(row.webhook_secret_previous_until, ctx.config.timeZone)
      : null,
  };
}

function validateAccountName(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed.length === 0) return 'name is empty';
  if (trimmed.length > limits.accountNameLengthMax)
    return `name is longer than ${limits.accountNameLengthMax} characters`;
  return null;
}

export async function createAccount(
  ctx: AppContext,
  name: string,
  db: DbOrTx = ctx.db,
): Promise<AccountResult<AccountView>> {
  const problem = validateAccountName(name);
  if (problem !== null) return { ok: false, error: problem };
  const credentials = newCredentials();
  const now = ctx.clock.now();
  const id = newId('acc', 17);
  await inTransaction(db, async (tx) => {
    await tx
      .insertInto('accounts')
      .values({
        id,
        name: name.trim(),
        status: 'active',
        public_token_hash: publicTokenHash(credentials.publicToken),
        public_token_enc: ctx.secrets.seal(credentials.publicToken),
        private_token_enc: ctx.secrets.seal(credentials.privateToken),
        webhook_secret_enc: ctx.secrets.seal(credentials.webhookSecret),
        created_at: now,
        updated_at: now,
      })
      .execute();
    // A sandbox account can withdraw from its first call (decision 755).
    if (ctx.config.mode === 'sandbox') await giveSandboxBankAccount(tx, id, name.trim(), now);
  });
  const row = await findAccountRowById(db, id);
  if (row === undefined) throw new Error('account vanished after insert');
  return { ok: true, value: view(ctx, row) };
}

export async function listAccounts(ctx: AppContext): Promise<readonly AccountView[]> {
  const rows = await ctx.db
    .selectFrom('accounts')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .limit(limits.cliListRowsMax)
    .execute();
  return rows.map((r) => view(ctx, r));
}

export async function showAccount(
  ctx: AppContext,
  id: string,
): Promise<AccountResult<AccountView>> {
  const row = await findAccountRowById(ctx.db, id);
  if (row === undefined) return { ok: false, error: `no account with id ${id}` };
  return { ok: true, value: view(ctx, row) };
}

export const rotateTargets = ['all', 'tokens', 'webhook-secret'] as const;
export type RotateTarget = (typeof rotateTargets)[number];

/**
 * A rotation answers a leak: whoever held the tokens may have signed in to the dashboard with them and invited
 * themselves, so every session of the account ends (named users' too) and every pending invitation link dies
 * (decision 740). Users who accepted keep their password; `cobro users remove` takes out one that is not wanted.
 */
async function endDashboardAccess(tx: Tx, accountId: string): Promise<void> {
  await tx.deleteFrom('dashboard_sessions').where('account_id', '=', accountId).execute();
  await tx
    .updateTable('dashboard_users')
    .set({ invite_hash: null, invite_expires_at: null })
    .where('account_id', '=', accountId)
    .where('invite_hash', 'is not', null)
    .execute();
}

/** The account's columns of a new token pair. */
function tokenColumns(ctx: AppContext, fresh: Credentials) {
  return {
    public_token_hash: publicTokenHash(fresh.publicToken),
    public_token_enc: ctx.secrets.seal(fresh.publicToken),
    private_token_enc: ctx.secrets.seal(fresh.privateToken),
  };
}

export interface RotateGrace {
  /** Hours the old token pair keeps working (decision 540); 0, the default, refuses it at once. */
  readonly graceHours?: number;
  /** Hours the old webhook secret keeps signing beside the new one (decision 1000); 0 stops it at once. */
  readonly webhookGraceHours?: number;
}

/**
 * Issues new credentials. The old tokens stop working at once, or, with `graceHours`, live on as a `full` key that
 * expires then (decision 540), so integrations move to the new pair without downtime. The old webhook secret signs
 * callbacks beside the new one for `webhookGraceHours` (a day unless told, decision 1000); a grace while one runs is
 * refused, changing nothing, and 0 ends it (decision 1150).
 */
export async function rotateAccount(
  ctx: AppContext,
  id: string,
  target: RotateTarget = 'all',
  {
    graceHours = 0,
    webhookGraceHours = keyLimits.webhookSecretGraceHoursDefault,
  }: RotateGrace = {},
): Promise<AccountResult<AccountView>> {
  const grace = graceMs(graceHours);
  if (!grace.ok) return grace;
  const webhookGrace = webhookGraceMs(webhookGraceHours);
  if (!webhookGrace.ok) return webhookGrace;
  const fresh = newCredentials();
  const tokens = target === 'all' || target === 'tokens';
  const webhook = target === 'all' || target === 'webhook-secret';
  const now = ctx.clock.now();
  const done = await inTransaction(ctx.db, async (tx): Promise<AccountResult<null>> => {
    // Locked to the commit: a concurrent rotation waits here and then reads the grace this one gave (decision 1150).
    const row = await tx
      .selectFrom('accounts')
      .selectAll()
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (row === undefined) return { ok: false, error: `no account with id ${id}` };
    // A second grace would retire the secret no one saw and drop the one the merchant verifies with: refused.
    if (webhook && webhookGrace.value > 0 && graceRuns(row.webhook_secret_previous_until, now))
      return {
        ok: false,
        error: await graceUnderWayRefusal(ctx, tx, id, row.webhook_secret_previous_until, target),
      };
    if (tokens && grace.value > 0)
      await storeKey(ctx, tx, {
        accountId: id,
        scope: 'full',
        name: 'primary (rotated)',
        publicToken: ctx.secrets.open(row.public_token_enc),
        privateToken: ctx.secrets.open(row.private_token_enc),
        expiresAt: new Date(now.getTime() + grace.value),
      });
    await tx
      .updateTable('accounts')
      .set({
        ...(tokens ? tokenColumns(ctx, fresh) : {}),
        ...(webhook
          ? retiringColumns(
              ctx,
              fresh.webhookSecret,
              row.webhook_secret_enc,
              webhookGrace.value,
              now,
            )
          : {}),
        updated_at: now,
      })
      .where('id', '=', id)
      .execute();
    if (tokens) await endDashboardAccess(tx, id);
    return { ok: true, value: null };
  });
  if (!done.ok) return done;
  // This process's next request must not be served the old credentials (decision 190).
  ctx.accounts.forgetKept();
  return showAccount(ctx, id);
}
