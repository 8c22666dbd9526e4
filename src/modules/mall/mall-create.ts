// POST /api/mall (reference §5.1; decision 122): one pending mall and, per merchant tuple, the store's own pending
// transaction (created by transactions' own createTransaction, so a store line obeys every rule a transaction
// does). Every check that can refuse runs before the first write, and the writes run under a savepoint that a
// late refusal rolls back whole: a refused mall writes nothing.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import {
  ApiError,
  ruleFailure,
  validationError,
  type RuleFailure,
} from '../../platform/errors/errors.ts';
import { publicTokenHash } from '../../platform/auth/tokens.ts';
import { newId, randomHex } from '../../platform/ids/ids.ts';
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import { checkCallbackUrl } from '../../platform/notifications/ssrf-guard.ts';
import { findAccountRowByTokenHash } from '../accounts/repository.ts';
import {
  findPaymentMethod,
  knownCurrencies,
  paymentMethodCatalogue,
} from '../reference/repository.ts';
import { checkoutTakes, unpayableReason } from '../../platform/processors/account-processors.ts';
import {
  allMethodsPayment,
  createTransactionInTransaction,
  isHttpUrl,
} from '../transactions/transaction-create.ts';
import type { CreateTransactionInput } from '../transactions/schemas.ts';
import { readMallLines, type MallLineInput } from './mall-input.ts';
import '../marketplace/types.ts';
import './types.ts';

export interface MallCreateInput {
  readonly email: string;
  readonly payment: number;
  readonly merchant: readonly (readonly unknown[])[];
  readonly order: string;
  readonly urlreturn: string;
  readonly urlnotify?: string | undefined;
  readonly amount?: number | undefined;
  readonly currency?: string | undefined;
}

interface Store {
  readonly line: MallLineInput;
  /** The store account; for a membership line, the caller (the membership's owner). */
  readonly accountId: string;
  readonly accountName: string;
  /** The membership token, when the line names one of the caller's memberships. */
  readonly marketplace: string | null;
}

/** A refusal met after the first write: thrown out of the savepoint so it rolls back, then answered. */
class Refused extends Error {
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
async function resolveStores(
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
async function createLine(
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
    .select(['id', 'transaction_key', 'membership_id'])
    .where('id', '=', created.id)
    .executeTakeFirstOrThrow();
  let storeName = store.accountName;
  if (row.membership_id !== null) {
    storeName = (
      await ctx.db
        .selectFrom('ma_memberships')
        .select('name')
        .where('id', '=', row.membership_id)
        .executeTakeFirstOrThrow()
    ).name;
  }
  return { transactionId: row.id, transactionKey: row.transaction_key, storeName };
}

export interface MallCreated {
  readonly status: 'success';
  readonly id: string;
  readonly individual_orders: Array<{
    merchant: string;
    amount: number;
    subject: string;
    event: string | null;
    identificador: string;
    individual_order: string;
  }>;
  readonly url: string;
}

/** The mall's checkout pays through the deployment's processor: a mall it could not take is refused (decision 451). */
async function unpayableMall(
  ctx: AppContext,
  currency: string,
  payment: number,
): Promise<RuleFailure | null> {
  const catalogue = await paymentMethodCatalogue(ctx);
  const reason = await unpayableReason(ctx, ctx.processor, null, currency, catalogue);
  if (reason === 'processor_not_configured') return ruleFailure('processor_not_configured');
  if (reason === 'currency_not_payable') return ruleFailure('currency_not_payable', { currency });
  const fixed =
    payment === allMethodsPayment
      ? undefined
      : catalogue.find((m) => m.currency === currency && m.payment === payment);
  return fixed !== undefined && !checkoutTakes(ctx.processor, fixed.kind, currency)
    ? ruleFailure('payment_method_unavailable', { payment, currency })
    : null;
}

export async function createMall(
  ctx: AppContext,
  caller: { readonly id: string; readonly name: string },
  input: MallCreateInput,
): Promise<MallCreated | RuleFailure> {
  const errors: Record<string, string> = {};
  const currency = (input.currency?.trim() || 'CLP').toUpperCase();
  if (!(await knownCurrencies(ctx)).has(currency)) errors.currency = 'invalid';
  if (
    input.payment !== allMethodsPayment &&
    errors.currency === undefined &&
    (await findPaymentMethod(ctx, currency, input.payment)) === undefined
  )
    errors.payment = 'invalid';
  const urlreturn = input.urlreturn.trim();
  if (!isHttpUrl(urlreturn)) errors.urlreturn = 'invalid';
  const urlnotify = input.urlnotify?.trim() || null;
  if (urlnotify !== null && !checkCallbackUrl(urlnotify, ctx.config).ok)
    errors.urlnotify = 'invalid';
  const read = readMallLines(input.merchant);
  if (!read.ok) Object.assign(errors, read.errors);
  if (read.ok && input.amount !== undefined && BigInt(input.amount) !== read.totalMinor)
    errors.amount = 'does not add up to the merchant amounts';
  const at = await ctx.accountClock.now(caller.id, ctx.db);
  const { stores, failure } = read.ok
    ? await resolveStores(ctx, caller.id, caller.name, read.lines, currency, at, errors)
    : { stores: [], failure: null };
  if (Object.keys(errors).length > 0) throw validationError(errors);
  const refused = await unpayableMall(ctx, currency, input.payment);
  if (refused !== null) return refused;
  if (failure !== null) return failure;
  if (!read.ok) throw new Error('lines read');

  const id = newId('malld', 25);
  const email = input.email.trim();
  try {
    const orders = await inTransaction(ctx.db as Tx, async (sp) => {
      const spCtx: AppContext = { ...ctx, db: sp };
      const inserted = await sp
        .insertInto('malls')
        .values({
          id,
          account_id: caller.id,
          order: input.order,
          email,
          payment: input.payment,
          currency,
          amount_minor: read.totalMinor,
          status: 'pending',
          urlreturn,
          urlnotify,
          verification_key: randomHex(16),
          created_at: at,
          updated_at: at,
          checkout_opened_at: null,
          attempt_id: null,
          attempt_lease_until: null,
          ended_at: null,
          paid_payment: null,
          media: null,
          authorization_code: null,
          card_last4: null,
          card_type: null,
          gateway_message: null,
        })
        .onConflict((oc) => oc.columns(['account_id', 'order']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted === undefined)
        throw new Refused(ruleFailure('mall_order_used', { order: input.order }));
      const out: MallCreated['individual_orders'] = [];
      for (const store of stores) {
        const line = await createLine(spCtx, sp, store, { email, currency, urlreturn, urlnotify });
        await sp
          .insertInto('mall_lines')
          .values({
            mall_id: id,
            position: store.line.position,
            merchant_hash: publicTokenHash(store.line.merchant),
            store_account_id: store.accountId,
            store_name: line.storeName,
            transaction_id: line.transactionId,
            amount_minor: store.line.amountMinor,
            subject: store.line.subject,
            event: store.line.event,
            individual_order: store.line.individualOrder,
          })
          .execute();
        out.push({
          // The store's name, never its token: answers are kept (idempotency) and logged (decision 440).
          merchant: line.storeName,
          amount: minorAsJsonNumber(store.line.amountMinor),
          subject: store.line.subject,
          event: store.line.event,
          identificador: line.transactionKey,
          individual_order: store.line.individualOrder,
        });
      }
      return out;
    });
    return {
      status: 'success',
      id,
      individual_orders: orders,
      url: `${ctx.config.publicBaseUrl}/gateway/mall/${id}`,
    };
  } catch (error) {
    if (error instanceof Refused) return error.failure;
    throw error;
  }
}
