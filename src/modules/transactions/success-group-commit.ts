// Group commit of payments' successes (decision 615): the approved payments of an account that arrive while its
// previous success is being written are recorded together by the next statement, one call of
// cobro_record_successes (success-record.ts, decision 730) that locks every row, appends every attempt, pays every
// row with its callback and posts every payment's journals: one round trip a group, whatever its size, and no
// BEGIN or COMMIT (one statement is atomic by itself). Every success of a merchant locks the merchant's pending
// settlement, so alone they queued on that lock and each paid its own lock, write and commit; a group takes the
// lock once. A payment with an extension (its part locks more of the ledger, in its own order) and a decline are
// recorded alone (attempt-outcome.ts). Nothing waits for a group to fill (platform/work/keyed-batcher.ts).
import type { AppContext } from '../../platform/context.ts';
import type { Engine } from '../../platform/db/database.ts';
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
import type { AttemptFacts, AttemptOutcome } from './attempt-outcome.ts';
import type { TransactionRow } from './repository.ts';
import { recordSuccesses, type ApprovedPayment } from './success-record.ts';

interface Queued extends ApprovedPayment {
  readonly ctx: AppContext;
}

const recordAlone = async (item: Queued): Promise<AttemptOutcome> =>
  (await recordSuccesses(item.ctx, item.facts.accountId, [item]))[0]!;

/**
 * A group's statement is atomic: when it fails on what one row can cause, because the database did not answer (a
 * connection cut, a server restarting) or because PostgreSQL rolled it back to break a deadlock (mayRunAlone,
 * decision 630), nothing of it was written, or it committed and only its answer was lost; each payment is then
 * recorded again alone, so only its own payer sees its failure. That is safe either way: a success clears the row's
 * claim and keeps the attempt as its charge key, so recording it again finds the row paid by this attempt and
 * answers it, writing nothing (success-record.ts). Any other failure (an assertion, a bug) is thrown to every
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
        (await recordSuccesses(items[0]!.ctx, accountId, items)).map((value) => ({
          ok: true,
          value,
        })),
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
  /** The row as the attempt's claim returned it (success-record.ts builds the callback from it). */
  claimed: TransactionRow,
): Promise<AttemptOutcome> {
  return ctx.paymentSuccessGroups.run(facts.accountId, { ctx, facts, outcome, claimed });
}
