// POST /api/transaction: validates the seed's and reference §1.1's rules and registers a pending payment order.
// The field checks are create-checks.ts, the extension's steps create-extensions.ts, the clock create-clock.ts.
import { randomInt } from 'node:crypto';
import type { AppContext } from '../../platform/context.ts';
import { validationError, type RuleFailure } from '../../platform/errors/errors.ts';
import { newId, randomHex } from '../../platform/ids/ids.ts';
import { checkoutUrl } from './checkout-link.ts';
import { insertTransaction, type NewTransaction } from './transaction-insert.ts';
import { queueCreate } from './create-group-commit.ts';
import { createClock } from './create-clock.ts';
import {
  checkAdditionalParameters,
  checkCurrencyAndPayment,
  checkExpiry,
  checkUrls,
  present,
} from './create-checks.ts';
import {
  attachExtensions,
  namedExtensions,
  prepareExtensions,
  type Attaching,
} from './create-extensions.ts';
import { unpayable } from './create-payable.ts';
import { recordGroupAudit } from '../../platform/audit/grouped.ts';
import type { CreateTransactionInput } from './schemas.ts';
import './types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';

export { allMethodsPayment, isHttpUrl } from './create-checks.ts';

/** Uniform over 1000000000000000..9999999999999999; three draws rather than one per digit (randomInt takes < 2^48). */
function sixteenDigits(): string {
  return (
    String(randomInt(1, 10)) +
    String(randomInt(0, 100_000_000)).padStart(8, '0') +
    String(randomInt(0, 10_000_000)).padStart(7, '0')
  );
}

export interface CreatedTransaction {
  readonly status: 'pending';
  readonly id: string;
  readonly url: string;
}

/** What a create that names no extension prepares (decision 320: no promise, no allocation for it). */
const noExtension = { attaching: [], failure: null } as const;

/** A create checked and ready to write: its row and the extensions that attach to it in the row's transaction. */
interface PlannedCreate {
  readonly row: NewTransaction;
  readonly attaching: readonly Attaching[];
}

/** The checked fields of a create, as its row carries them. */
type CheckedFields = Pick<
  NewTransaction,
  'currency' | 'payment' | 'expiresAt' | 'urlreturn' | 'urlnotify' | 'additionalParametersJson'
>;

/** The pending row of a checked create, its keys drawn here; no extension yet (attachAndInsert names it). */
function newRow(
  accountId: string,
  input: CreateTransactionInput,
  checked: CheckedFields,
  createdAt: Date | null,
): NewTransaction {
  return {
    id: newId('trx', 17),
    accountId,
    email: input.email.trim(),
    order: input.order,
    subject: input.subject,
    amountMinor: BigInt(input.amount),
    ...checked,
    extension: null,
    extensionRef: null,
    paymentKey: newId('pr', 17),
    transactionKey: sixteenDigits(),
    verificationKey: randomHex(16),
    createdAt,
  };
}

/** Every check, in the request's order: a 400 with all field problems, else a refusal, else the row to write. */
async function planCreate(
  ctx: AppContext,
  accountId: string,
  input: CreateTransactionInput,
): Promise<PlannedCreate | RuleFailure> {
  const errors: Record<string, string> = {};
  const { currency, payment, fixedKind } = await checkCurrencyAndPayment(ctx, input, errors);
  const { urlreturn, urlnotify } = checkUrls(ctx, accountId, input, errors);
  const clock = createClock(ctx, accountId);
  const expired = present(input.expired);
  const expiresAt = await checkExpiry(ctx, expired, urlreturn !== null, clock.now, errors);
  const params = (input.additional_parameters ?? null) as Readonly<Record<string, unknown>> | null;
  await checkAdditionalParameters(ctx, params, { payment, currency }, errors);
  // Most creates name no extension: no promise for them (decision 320).
  const named = namedExtensions(ctx, input);
  const { attaching, failure } =
    named.length === 0
      ? noExtension
      : await prepareExtensions(ctx, named, errors, { accountId, currency, at: clock.now });
  if (Object.keys(errors).length > 0) throw validationError(errors);
  if (failure !== null) return failure;
  const refused = await unpayable(ctx, accountId, currency, payment, fixedKind);
  if (refused !== null) return refused;
  const additionalParametersJson = params === null ? null : JSON.stringify(params);
  const checked = { currency, payment, expiresAt, urlreturn, urlnotify, additionalParametersJson };
  return {
    row: newRow(accountId, input, checked, await clock.forInsert()),
    attaching,
  };
}

/** Attaches the extension in `tx`, then inserts the row naming it. */
async function attachAndInsert(
  ctx: AppContext,
  tx: Tx,
  { row, attaching }: PlannedCreate,
): Promise<RuleFailure | null> {
  const attached = await attachExtensions(tx, attaching);
  if (!('ok' in attached)) return attached;
  const { columns } = attached;
  await insertTransaction(ctx, tx, {
    ...row,
    extension: columns?.extension ?? null,
    extensionRef: columns?.extension_ref ?? null,
  });
  return null;
}

async function created(ctx: AppContext, id: string): Promise<CreatedTransaction> {
  // The link key may be created on first use, outside the transaction (it reads through ctx.db).
  return { status: 'pending', id, url: await checkoutUrl(ctx, id) };
}

/**
 * The grouped create (a request without an Idempotency-Key, the route's `grouped` runner, or a caller with the
 * database): without an extension its one statement is atomic by itself and the row goes in its account's next
 * group commit (decision 400); with one, the extension attaches and the row is inserted in a transaction of its own.
 */
export async function createTransaction(
  ctx: AppContext,
  accountId: string,
  input: CreateTransactionInput,
): Promise<CreatedTransaction | RuleFailure> {
  const planned = await planCreate(ctx, accountId, input);
  if (!('row' in planned)) return planned;
  if (planned.attaching.length === 0) await queueCreate(ctx, planned.row);
  else {
    const failure = await inTransaction(ctx.db, async (tx) => {
      const refused = await attachAndInsert(ctx, tx, planned);
      // Its request's audit row, in its transaction (decision 565), as a group commit's.
      if (refused === null) await recordGroupAudit(tx, [{ ctx, target: planned.row.id }]);
      return refused;
    });
    if (failure !== null) return failure;
  }
  return created(ctx, planned.row.id);
}

/**
 * The same create in the caller's transaction `tx` (the runner's with an Idempotency-Key, so the row commits with
 * the key's answer; a mall's): written at once, never queued, since a group could wait for the connection `tx` holds.
 * Joined without a savepoint: no caller goes on after a throw (the runner's own savepoint covers a keyed command).
 */
export async function createTransactionInTransaction(
  ctx: AppContext,
  tx: Tx,
  accountId: string,
  input: CreateTransactionInput,
): Promise<CreatedTransaction | RuleFailure> {
  const planned = await planCreate(ctx, accountId, input);
  if (!('row' in planned)) return planned;
  const failure = await attachAndInsert(ctx, tx, planned);
  if (failure !== null) return failure;
  return created(ctx, planned.row.id);
}
