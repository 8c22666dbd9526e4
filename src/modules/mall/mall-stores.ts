// A mall's store lines (reference §5.1; decision 122): each merchant tuple's store, and its own pending
// transaction, created by transactions' own createTransactionInTransaction so a line obeys every rule a
// transaction does; its field problems answered at the line's place in the mall request.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { ApiError, validationError, type RuleFailure } from '../../platform/errors/errors.ts';
import { publicTokenHash } from '../../platform/auth/tokens.ts';
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import { findAccountRowByTokenHash } from '../accounts/repository.ts';
import { createTransactionInTransaction } from '../transactions/transaction-create.ts';
import type { CreateTransactionInput } from '../transactions/schemas.ts';
import type { MallLineInput } from './mall-input.ts';
import '../marketplace/types.ts';

export interface Store {
  readonly line: MallLineInput;
  /** The store account; for a membership line, the caller (the membership's owner). */
  readonly accountId: string;
  readonly accountName: string;
  /** The membership token, when the line names one of the caller's memberships. */
  readonly marketplace: string | null;
}

/** A refusal met after the first write: thrown out of the savepoint so it rolls back, then answered. */
export class Refused extends Error {
  readonly failure: RuleFailure;
  constructor(failure: RuleFailure) {
    super(failure.message_error);
    this.failure = failure;
  }
}

/** A store transaction's own field names, as places in the mall request. */
function placeOf(position: number, field: string): string {
  const byField: Readonly<Record<string, string>> = {
    marketplace: `merchant.${position}.0`,
    amount: `merchant.${position}.1`,
    subject: `merchant.${position}.2`,
    event: `merchant.${position}.3`,
    order: `merchant.${position}.4`,
    urlnotify: `merchant.${position}.5`,
  };
  return byField[field] ?? field;
}

/** Each tuple's store: an active account by its public token, else one of the caller's memberships by its token. */
export async function resolveStores(
  ctx: AppContext,
  callerId: string,
  callerName: string,
  lines: readonly MallLineInput[],
  currency: string,
  at: Date,
  errors: Record<string, string>,
): Promise<{ stores: Store[]; failure: RuleFailure | null }> {
  const marketplace = ctx.paymentExtensions.find((e) => e.field === 'marketplace');
  const stores: Store[] = [];
  let failure: RuleFailure | null = null;
  for (const line of lines) {
    const account = await findAccountRowByTokenHash(ctx.db, publicTokenHash(line.merchant));
    if (account !== undefined) {
      stores.push({ line, accountId: account.id, accountName: account.name, marketplace: null });
      continue;
    }
    const prepared =
      marketplace === undefined
        ? null
        : await marketplace.prepare(ctx, {
            accountId: callerId,
            value: line.merchant,
            currency,
            at,
          });
    if (prepared === null || (!prepared.ok && 'errors' in prepared)) {
      errors[`merchant.${line.position}.0`] = 'invalid';
      continue;
    }
    if (!prepared.ok) failure ??= prepared.failure;
    // A transaction names one extension at most (decision 042): a membership line cannot also sell for an event.
    if (line.event !== null) errors[`merchant.${line.position}.3`] = 'invalid';
    stores.push({ line, accountId: callerId, accountName: callerName, marketplace: line.merchant });
  }
  return { stores, failure };
}

/** Creates one store line's transaction; a refusal is thrown (Refused, or the 400 with the mall's field names). */
export async function createLine(
  ctx: AppContext,
  tx: Tx,
  store: Store,
  mall: { email: string; currency: string; urlreturn: string; urlnotify: string | null },
) {
  const input: CreateTransactionInput = {
    email: mall.email,
    order: store.line.individualOrder,
    subject: store.line.subject,
    amount: minorAsJsonNumber(store.line.amountMinor),
    currency: mall.currency,
    urlreturn: mall.urlreturn,
    ...((store.line.urlnotify ?? mall.urlnotify) !== null
      ? { urlnotify: (store.line.urlnotify ?? mall.urlnotify)! }
      : {}),
    ...(store.marketplace !== null ? { marketplace: store.marketplace } : {}),
    ...(store.line.event !== null ? { event: store.line.event } : {}),
  };
  let created;
  try {
    created = await createTransactionInTransaction(ctx, tx, store.accountId, input);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'validation_failed') throw error;
    const problems = (error.extra.errors ?? {}) as Record<string, string>;
    throw validationError(
      Object.fromEntries(
        Object.entries(problems).map(([field, problem]) => [
          placeOf(store.line.position, field),
          problem,
        ]),
      ),
    );
  }
  if (created.status === 'failed') throw new Refused(created);
  const row = await ctx.db
    .selectFrom('transactions')
    .select(['id', 'transaction_key', 'extension_ref'])
    .where('id', '=', created.id)
    .executeTakeFirstOrThrow();
  let storeName = store.accountName;
  // A membership line's transaction names its membership (the marketplace's extension reference).
  if (store.marketplace !== null && row.extension_ref !== null) {
    storeName = (
      await ctx.db
        .selectFrom('ma_memberships')
        .select('name')
        .where('id', '=', row.extension_ref)
        .executeTakeFirstOrThrow()
    ).name;
  }
  return { transactionId: row.id, transactionKey: row.transaction_key, storeName };
}
