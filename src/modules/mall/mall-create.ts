// POST /api/mall (reference §5.1; decision 122): one pending mall and, per merchant tuple, the store's own pending
// transaction (mall-stores.ts). Every check that can refuse runs before the first write (mall-checks.ts), and the
// writes run under a savepoint that a late refusal rolls back whole: a refused mall writes nothing.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { ruleFailure, type RuleFailure } from '../../platform/errors/errors.ts';
import { publicTokenHash } from '../../platform/auth/tokens.ts';
import { newId, randomHex } from '../../platform/ids/ids.ts';
import { minorAsJsonNumber } from '../../platform/money/json-number.ts';
import type { OtherAccountObject } from '../../platform/audit/command-audit.ts';
import { planMall, type MallCreateInput, type MallPlan } from './mall-checks.ts';
import { createLine, Refused } from './mall-stores.ts';
import './types.ts';

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

interface MallRow {
  readonly id: string;
  readonly accountId: string;
  readonly email: string;
  readonly input: MallCreateInput;
  readonly plan: MallPlan;
}

/** The pending mall; a refusal (thrown, so the savepoint rolls back) when the caller already used its `order`. */
async function insertMall(sp: Tx, { id, accountId, email, input, plan }: MallRow): Promise<void> {
  const inserted = await sp
    .insertInto('malls')
    .values({
      id,
      account_id: accountId,
      order: input.order,
      email,
      payment: input.payment,
      currency: plan.currency,
      amount_minor: plan.totalMinor,
      status: 'pending',
      urlreturn: plan.urlreturn,
      urlnotify: plan.urlnotify,
      verification_key: randomHex(16),
      created_at: plan.at,
      updated_at: plan.at,
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
}

/** The store transactions a created mall made, kept on its answer out of its JSON (never serialized, a symbol). */
const storeTransactions = Symbol('mall: store transactions');

/**
 * The transaction each line made in its store's account, for the audit rows in the stores' chains (decision 920);
 * none for a refusal.
 */
export function storeTransactionsOf(
  value: MallCreated | RuleFailure,
): readonly OtherAccountObject[] {
  return (
    (value as { [storeTransactions]?: readonly OtherAccountObject[] })[storeTransactions] ?? []
  );
}

/** Each store's transaction and the mall's line that points at it, in the tuples' order; the answer's orders. */
async function writeLines(ctx: AppContext, sp: Tx, mall: MallRow) {
  const { currency, urlreturn, urlnotify } = mall.plan;
  const out: MallCreated['individual_orders'] = [];
  const made: OtherAccountObject[] = [];
  for (const store of mall.plan.stores) {
    const mallFields = { email: mall.email, currency, urlreturn, urlnotify };
    const line = await createLine(ctx, sp, store, mallFields);
    await sp
      .insertInto('mall_lines')
      .values({
        mall_id: mall.id,
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
    made.push({ account: store.accountId, target: line.transactionId });
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
  return { orders: out, made };
}

export async function createMall(
  ctx: AppContext,
  caller: { readonly id: string; readonly name: string },
  input: MallCreateInput,
): Promise<MallCreated | RuleFailure> {
  const plan = await planMall(ctx, caller, input);
  if (!('stores' in plan)) return plan;
  const mall: MallRow = {
    id: newId('malld', 25),
    accountId: caller.id,
    email: input.email.trim(),
    input,
    plan,
  };
  try {
    const { orders, made } = await inTransaction(ctx.db as Tx, async (sp) => {
      await insertMall(sp, mall);
      return writeLines({ ...ctx, db: sp }, sp, mall);
    });
    const answer: MallCreated = {
      status: 'success',
      id: mall.id,
      individual_orders: orders,
      url: `${ctx.config.publicBaseUrl}/gateway/mall/${mall.id}`,
    };
    Object.defineProperty(answer, storeTransactions, { value: made, enumerable: false });
    return answer;
  } catch (error) {
    if (error instanceof Refused) return error.failure;
    throw error;
  }
}
