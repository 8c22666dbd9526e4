// POST /api/transaction: validates the seed's and reference §1.1's rules and registers a pending payment order.
import { randomInt } from 'node:crypto';
import type { AppContext } from '../../platform/context.ts';
import { ruleFailure, validationError, type RuleFailure } from '../../platform/errors/errors.ts';
import {
  checkoutTakes,
  processorForAccount,
  unpayableReason,
} from '../../platform/processors/account-processors.ts';
import { newId, randomHex } from '../../platform/ids/ids.ts';
import { checkCallbackUrl } from '../../platform/notifications/ssrf-guard.ts';
import { parseLocal } from '../../platform/time/time-format.ts';
import { limits, transactionLimits } from '../../limits/index.ts';
import {
  findPaymentMethod,
  knownCurrencies,
  paymentMethodCatalogue,
} from '../reference/repository.ts';
import { checkoutUrl } from './checkout-link.ts';
import { insertTransaction, type NewTransaction } from './transaction-insert.ts';
import { queueCreate } from './create-group-commit.ts';
import { recordGroupAudit } from '../../platform/audit/grouped.ts';
import type { ExtensionColumns, Prepared } from './extension.ts';
import { normaliseRut } from '../../platform/ids/rut.ts';
import type { CreateTransactionInput } from './schemas.ts';
import './types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';

/** `expired`'s problem when it is not written `YYYY-MM-DD HH:MM:SS` (the service's zone is implied). */
const expiredFormatProblem = 'format YYYY-MM-DD HH:MM:SS';

/** payment 99 lets the payer choose among every method of the currency. */
export const allMethodsPayment = 99;
/** reference §1.1: these bank-transfer methods need additional_parameters.payer_rut. */
const payerRutRequired: ReadonlySet<number> = new Set([4, 19, 26]);

/** A `urlreturn` the payer's browser can be sent back to (the mall's lines use the same rule). */
export function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function present(text: string | undefined): string | null {
  return text === undefined || text.trim() === '' ? null : text.trim();
}

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

type NamedExtension = {
  readonly extension: AppContext['paymentExtensions'][number];
  readonly value: string;
};

/** The extensions whose field the request fills, in the context's order. */
function namedExtensions(
  ctx: AppContext,
  input: CreateTransactionInput,
): readonly NamedExtension[] {
  return ctx.paymentExtensions.flatMap((extension) => {
    const raw = input[extension.field];
    const value = typeof raw === 'string' ? present(raw) : null;
    return value === null ? [] : [{ extension, value }];
  });
}

/**
 * Runs the creation checks of every extension the request names. A transaction names at most one (decision 042):
 * each extension after the first named one is an invalid field, and is not checked further.
 */
async function prepareExtensions(
  ctx: AppContext,
  named: readonly NamedExtension[],
  errors: Record<string, string>,
  base: { readonly accountId: string; readonly currency: string; readonly at: () => Promise<Date> },
): Promise<readonly Prepared[]> {
  for (const { extension } of named.slice(1)) errors[extension.field] = 'invalid';
  const prepared: Prepared[] = [];
  for (const { extension, value } of named) {
    if (errors[extension.field] !== undefined) continue;
    const p = await extension.prepare(ctx, { ...base, at: await base.at(), value });
    if (!p.ok && 'errors' in p) Object.assign(errors, p.errors);
    prepared.push(p);
  }
  return prepared;
}

/**
 * A sale no payer could pay is refused now rather than stranding the payer (issue 15, decision 451): a currency in
 * which the account's processor takes no method, production without a processor, a fixed `payment` it cannot take.
 * In sandbox the processor is the deployment's, so this reads nothing from the database.
 */
async function unpayable(
  ctx: AppContext,
  accountId: string,
  currency: string,
  payment: number | null,
  kind: string | null,
): Promise<RuleFailure | null> {
  const processor = await processorForAccount(ctx, accountId);
  const reason = await unpayableReason(
    ctx,
    processor,
    accountId,
    currency,
    await paymentMethodCatalogue(ctx),
  );
  if (reason === 'processor_not_configured') return ruleFailure('processor_not_configured');
  if (reason === 'currency_not_payable') return ruleFailure('currency_not_payable', { currency });
  if (payment !== null && kind !== null && !checkoutTakes(processor, kind, currency, payment)) {
    return ruleFailure('payment_method_unavailable', { payment, currency });
  }
  return null;
}

/**
 * The create's one clock: "now" as the account sees it, read at most once. Its sandbox offset is kept in memory
 * while the change feed is live (decision 260), and then the create binds its time (decision 250); without a live
 * feed the offset is read only when a check needs "now" (`now`), and otherwise `forInsert` answers null and the
 * INSERT computes the same time, the service clock plus the account's offset (decision 200): one round trip either way.
 */
function createClock(ctx: AppContext, accountId: string) {
  let read: Date | null = null;
  return {
    now: async (): Promise<Date> =>
      (read ??= await ctx.accountClock.now(accountId, ctx.db, { kept: true })),
    forInsert: async (): Promise<Date | null> =>
      read ??
      (ctx.accountClock.keepsOffsets()
        ? ctx.accountClock.now(accountId, ctx.db, { kept: true })
        : null),
  };
}

/** A create checked and ready to write: its row and the extensions that attach to it in the row's transaction. */
interface PlannedCreate {
  readonly row: NewTransaction;
  readonly attaching: readonly Extract<Prepared, { ok: true }>[];
}

/** additional_parameters' own checks (reference §1.1): its size, its known keys' types, a payer_rut where the method needs one. */
function checkAdditionalParameters(
  params: Readonly<Record<string, unknown>> | null,
  payment: number | null,
  errors: Record<string, string>,
): void {
  if (params !== null) {
    if (JSON.stringify(params).length > limits.additionalParametersCharsMax)
      errors.additional_parameters = 'too long';
    for (const key of ['order_ext', 'payer_rut', 'payer_bank'] as const) {
      const v = params[key];
      if (v !== undefined && typeof v !== 'string' && typeof v !== 'number')
        errors[`additional_parameters.${key}`] = 'invalid';
    }
  }
  const payerRut = params?.payer_rut;
  if (
    payment !== null &&
    payerRutRequired.has(payment) &&
    (payerRut === undefined || String(payerRut).trim() === '')
  ) {
    errors['additional_parameters.payer_rut'] = 'is empty';
  } else if (
    payerRut !== undefined &&
    errors['additional_parameters.payer_rut'] === undefined &&
    normaliseRut(String(payerRut)) === null
  ) {
    errors['additional_parameters.payer_rut'] = 'invalid';
  }
}

async function planCreate(
  ctx: AppContext,
  accountId: string,
  input: CreateTransactionInput,
): Promise<PlannedCreate | RuleFailure> {
  const errors: Record<string, string> = {};
  const currency = (present(input.currency) ?? 'CLP').toUpperCase();
  if (!(await knownCurrencies(ctx)).has(currency)) errors.currency = 'invalid';
  const payment = input.payment ?? null;
  const fixedMethod =
    payment === null || payment === allMethodsPayment || errors.currency !== undefined
      ? null
      : await findPaymentMethod(ctx, currency, payment);
  if (
    payment !== null &&
    payment !== allMethodsPayment &&
    errors.currency === undefined &&
    fixedMethod === undefined
  )
    errors.payment = 'invalid';
  const urlreturn = present(input.urlreturn);
  const urlnotify = present(input.urlnotify);
  if (urlreturn !== null && !isHttpUrl(urlreturn)) errors.urlreturn = 'invalid';
  // Only the static checks (scheme, address literals): names are resolved and checked at each delivery.
  if (urlnotify !== null && !checkCallbackUrl(urlnotify, ctx.config).ok)
    errors.urlnotify = 'invalid';
  const clock = createClock(ctx, accountId);
  let expiresAt: Date | null = null;
  const expired = present(input.expired);
  if (expired !== null) {
    const wellFormed = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(expired);
    expiresAt = wellFormed ? parseLocal(expired, ctx.config.timeZone) : null;
    // An ISO 8601 date (`2026-12-01T10:00:00Z`) or another spelling is told the one format taken (issue 32).
    if (!wellFormed) errors.expired = expiredFormatProblem;
    else if (
      expiresAt === null ||
      expiresAt.getTime() <= (await clock.now()).getTime() + transactionLimits.expiryLeadMsMin ||
      expiresAt.getTime() > transactionLimits.expiresAtMsMax
    )
      errors.expired = 'invalid';
    if (urlreturn === null) errors.urlreturn = 'is empty';
  }
  const params = (input.additional_parameters ?? null) as Readonly<Record<string, unknown>> | null;
  checkAdditionalParameters(params, payment, errors);
  const payerBank = params?.payer_bank;
  if (payerBank !== undefined && errors['additional_parameters.payer_bank'] === undefined) {
    const bank = await ctx.db
      .selectFrom('banks')
      .select('code')
      .where('currency', '=', currency)
      .where('code', '=', String(payerBank))
      .executeTakeFirst();
    if (bank === undefined) errors['additional_parameters.payer_bank'] = 'invalid';
  }
  // Most creates name no extension: no promise for them (decision 320).
  const named = namedExtensions(ctx, input);
  const prepared =
    named.length === 0
      ? []
      : await prepareExtensions(ctx, named, errors, { accountId, currency, at: clock.now });
  if (Object.keys(errors).length > 0) throw validationError(errors);
  for (const p of prepared) if (!p.ok && 'failure' in p) return p.failure;
  const refused = await unpayable(ctx, accountId, currency, payment, fixedMethod?.kind ?? null);
  if (refused !== null) return refused;

  const createdAt = await clock.forInsert();
  const row: NewTransaction = {
    id: newId('trx', 17),
    accountId,
    email: input.email.trim(),
    order: input.order,
    subject: input.subject,
    amountMinor: BigInt(input.amount),
    currency,
    payment,
    expiresAt,
    urlreturn,
    urlnotify,
    additionalParametersJson: params === null ? null : JSON.stringify(params),
    marketplace: null,
    membershipId: null,
    eventId: null,
    paymentKey: newId('pr', 17),
    transactionKey: sixteenDigits(),
    verificationKey: randomHex(16),
    createdAt,
  };
  return { row, attaching: prepared.filter((p): p is Extract<Prepared, { ok: true }> => p.ok) };
}

/** Attaches the extensions in `tx`, then inserts the row with the columns they name. */
async function attachAndInsert(
  ctx: AppContext,
  tx: Tx,
  { row, attaching }: PlannedCreate,
): Promise<RuleFailure | null> {
  let columns: ExtensionColumns = {};
  for (const p of attaching) {
    const attached = await p.attach(tx);
    if (!attached.ok) return attached.failure;
    columns = { ...columns, ...attached.columns };
  }
  await insertTransaction(ctx, tx, {
    ...row,
    marketplace: columns.marketplace ?? null,
    membershipId: columns.membership_id ?? null,
    eventId: columns.event_id ?? null,
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
