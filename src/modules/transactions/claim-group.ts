// Group commit of attempts' claims (decision 620): the claims of an account that arrive while its previous claim
// statement runs are made by the next one (claim-statement.ts), one round trip and one commit for all of them. A
// claim is the one write of a payment outside its success's group (success-group-commit.ts), and under load it cost
// PostgreSQL more than any statement of that group shared by its payments. Nothing waits for a group to fill
// (platform/work/keyed-batcher.ts).
import type { AppContext } from '../../platform/context.ts';
import type { Engine } from '../../platform/db/database.ts';
import { KeyedBatcher, type Settled, batchingFor } from '../../platform/work/keyed-batcher.ts';
import { limits } from '../../limits/index.ts';
import type { TransactionRow } from './repository.ts';
import { claimPayable, type PayableClaim } from './claim-statement.ts';

/** One attempt's claim on its transaction, held for `leaseMs` from the group's service now (decision 760). */
export interface ClaimWanted {
  readonly transactionId: string;
  readonly attemptId: string;
  readonly leaseMs: number;
}

interface Queued {
  readonly ctx: AppContext;
  readonly claim: ClaimWanted;
}

/**
 * One statement for the group, at the account's now when it runs. It writes nothing a claim could make fail (a
 * claim that does not hold simply gets no row back), so a failure is the database's and every claim answers it:
 * its payer has not been charged and can try again.
 */
async function claimTogether(
  accountId: string,
  items: readonly Queued[],
): Promise<readonly Settled<TransactionRow | undefined>[]> {
  const { ctx } = items[0]!;
  const now = await ctx.accountClock.now(accountId, ctx.db, { kept: true });
  // A lease is process-coordination time: a sandbox clock moved past it must not free a live attempt.
  const leaseNow = ctx.clock.now();
  const rows = await claimPayable(
    ctx.db,
    { accountId, now, leaseNow, guardUndecided: ctx.config.mode === 'production' },
    items.map(
      ({ claim }): PayableClaim => ({
        transactionId: claim.transactionId,
        attemptId: claim.attemptId,
        leaseUntil: new Date(leaseNow.getTime() + claim.leaseMs),
      }),
    ),
  );
  return rows.map((value) => ({ ok: true, value }));
}

declare module '../../platform/context.ts' {
  interface AppContext {
    /** The app's group commit of attempts' claims, made once by the composition root (src/runtime.ts). */
    readonly attemptClaimGroups: AttemptClaimGroups;
  }
}

export type AttemptClaimGroups = KeyedBatcher<Queued, TransactionRow | undefined>;

/** One batcher per app (database); on PGlite each group is gathered one turn of the loop later (decision 400). */
export function attemptClaimGroups(engine: Engine): AttemptClaimGroups {
  return new KeyedBatcher<Queued, TransactionRow | undefined>(
    claimTogether,
    limits.attemptClaimGroupMax,
    batchingFor(engine),
  );
}

/**
 * Claims the transaction in its account's next group: the claimed row, or undefined when it is not payable now.
 * A lane an account, since the claim reads the account's clock.
 */
export function claimGrouped(
  ctx: AppContext,
  accountId: string,
  claim: ClaimWanted,
): Promise<TransactionRow | undefined> {
  return ctx.attemptClaimGroups.run(accountId, { ctx, claim });
}
