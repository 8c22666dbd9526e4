// Group commit of payments' successes (decision 615): the approved payments of an account that arrive while its
// previous success is being written are recorded together by the next transaction: one statement locks every row and
// appends every attempt, one pays every row and writes its callback, one locks the ledger's accounts and one posts
// every payment's journals, and one commit ends it: six round trips a group with BEGIN, whatever its size. Every
// success of a merchant locks the merchant's pending settlement, so alone they queued on that lock and each paid its
// own lock, write and commit; a group takes the lock once. A payment with an extension (its part locks more of the
// ledger, in its own order) and a decline are recorded alone (attempt-outcome.ts). Nothing waits for a group to fill
// (platform/work/keyed-batcher.ts).
import assert from 'node:assert/strict';
import type { AppContext } from '../../platform/context.ts';
import type { Engine } from '../../platform/db/database.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { mayRunAlone } from '../../platform/db/row-failure.ts';
import type { ApprovedCharge } from '../../platform/processors/processor.ts';
import {
  KeyedBatcher,
  settleEach,
  settleGroup,
  type Settled,
  batchingFor,
} from '../../platform/work/keyed-batcher.ts';
import { limits } from '../../limits/index.ts';
import {
  approvalOf,
  lockAttempts,
  recordOutcome,
  type AttemptFacts,
  type AttemptOutcome,
} from './attempt-outcome.ts';
import { markSuccesses, type Success } from './transaction-result.ts';

interface Queued {
  readonly ctx: AppContext;
  readonly facts: AttemptFacts;
  readonly outcome: ApprovedCharge;
}

const recordAlone = (item: Queued): Promise<AttemptOutcome> =>
  recordOutcome(item.ctx, item.facts, item.outcome);

/** One transaction for the group: its rows locked and paid by one statement each, the journals of all, one commit. */
async function recordTogether(
  accountId: string,
  items: readonly Queued[],
): Promise<AttemptOutcome[]> {
  const { ctx } = items[0]!;
  const now = await ctx.accountClock.now(accountId, ctx.db, { kept: true });
  return inTransaction(ctx.db, async (tx) => {
    for (const { facts } of items)
      assert.equal(facts.accountId, accountId, "a group holds one account's payments");
    const locked = await lockAttempts(ctx, tx, items, now);
    const successes: Success[] = [];
    for (const [index, one] of locked.entries()) {
      if (one.kind === 'decided') continue;
      assert.equal(one.row.extension, null, 'a payment with an extension is recorded alone');
      const { facts, outcome } = items[index]!;
      successes.push({ row: one.row, approval: approvalOf(facts, outcome), feeRule: one.feeRule });
    }
    const paid = successes.length === 0 ? [] : await markSuccesses(ctx, tx, successes, now);
    if (paid.length > 0)
      await ctx.ledger.postGroup(
        tx,
        paid.flatMap((p) => p.journals),
      );
    let next = 0;
    return locked.map(
      (one): AttemptOutcome =>
        one.kind === 'decided' ? one.answer : { kind: 'approved', paid: paid[next++]!.paid },
    );
  });
}

/**
 * A group's transaction is atomic: when it fails on what one row can cause, because the database did not answer (a
 * connection cut, a server restarting) or because PostgreSQL rolled it back to break a deadlock (mayRunAlone,
 * decision 630), nothing of it was written, or it committed and only its answer was lost; each payment is then
 * recorded again alone, so only its own payer sees its failure. That is safe either way: a success clears the row's
 * claim and keeps the attempt as its charge key, so recording it again finds the row paid by this attempt and
 * answers it, writing nothing (attempt-outcome.ts). Any other failure (an assertion, a bug) is thrown to every
 * payment of the group, logged (decision 430).
 */
async function recordGroup(
  accountId: string,
  items: readonly Queued[],
): Promise<readonly Settled<AttemptOutcome>[]> {
  if (items.length === 1) return settleEach(items, recordAlone);
  return settleGroup(
    items,
    { noun: 'payments', fallback: 'each runs again alone', logger: items[0]!.ctx.logger },
    {
      together: async () =>
        (await recordTogether(accountId, items)).map((value) => ({ ok: true, value })),
      retriable: mayRunAlone,
      fallback: () => settleEach(items, recordAlone),
    },
  );
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** The app's group commit of payments' successes, made once by the composition root (src/runtime.ts). */
    readonly paymentSuccessGroups: PaymentSuccessGroups;
  }
}

export type PaymentSuccessGroups = KeyedBatcher<Queued, AttemptOutcome>;

/** One batcher per app (database); on PGlite each group is gathered one turn of the loop later (decision 400). */
export function paymentSuccessGroups(engine: Engine): PaymentSuccessGroups {
  return new KeyedBatcher<Queued, AttemptOutcome>(
    recordGroup,
    limits.paymentSuccessGroupMax,
    batchingFor(engine),
  );
}

/**
 * Records an approved payment without an extension in its account's next group: one lane an account, since every
 * success of the account locks its pending settlement.
 */
export function recordSuccessGrouped(
  ctx: AppContext,
  facts: AttemptFacts,
  outcome: ApprovedCharge,
): Promise<AttemptOutcome> {
  return ctx.paymentSuccessGroups.run(facts.accountId, { ctx, facts, outcome });
}
