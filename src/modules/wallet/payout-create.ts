// Creating a payout or a withdrawal: reserve the amount under the wallet's row lock (so concurrent requests can
// never overdraw), record the payout, and in the sandbox resolve the seed's fixed amounts at once. The funds check
// takes the lock and one more statement writes it all (payout-statement.ts): every read and decision that needs no
// lock comes before them, and the commit right after. Payouts that arrive while a group's transaction runs are
// written together in the next one, under one lock statement and one commit (decisions 220, 330): a group shared
// by every account whose rows it can take without waiting (payout-shared-group.ts, decision 590), and a lane of its
// own for an account whose row another transaction holds, so only its payouts wait (decision 430).
import assert from 'node:assert/strict';
import type { AppContext } from '../../platform/context.ts';
import { ruleFailure } from '../../platform/errors/errors.ts';
import type {
  CheckedReservation,
  JournalRows,
  LockedAccounts,
  Shortfall,
} from '../../platform/ledger/ledger.ts';
import { gatedMovementColumns } from './movements.ts';
import {
  accountsOf,
  answerForExisting,
  movementsOf,
  planPayout,
  reservationOf,
  type CreateOutcome,
  type PayoutRequest,
  type PlannedPayout,
} from './payout-plan.ts';
import { enqueuePayoutResult } from './payout-transition.ts';
import { findPayoutByOrder, type PayoutRow } from './repository.ts';
import { writePayoutGroupStatement, writePayoutStatement } from './payout-statement.ts';
import { settleEach, settleGroup, type Settled } from '../../platform/work/keyed-batcher.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { mayRunAlone } from '../../platform/db/row-failure.ts';
import type { Tx } from '../../platform/db/types.ts';
import { groupAuditEntries } from '../../platform/audit/grouped.ts';

/** A refused payout's answer, still under the wallet's lock: an order committed meanwhile answers first. */
async function refusalOf(
  tx: Tx,
  request: PayoutRequest,
  shortfall: Shortfall,
): Promise<CreateOutcome> {
  const existing = await findPayoutByOrder(tx, request.accountId, request.kind, request.order);
  if (existing !== undefined) return answerForExisting(existing, request);
  return {
    ok: false,
    failure: ruleFailure('insufficient_funds', {
      availableMinor: shortfall.availableMinor,
      currency: request.currency,
      requestedMinor: request.amountMinor,
    }),
  };
}

/**
 * A written payout's answer, its immediate outcome's callback queued in the same transaction: the only use of its
 * row, so a group of payouts still open asks for none (rowsWanted).
 */
async function writtenOf(
  ctx: AppContext,
  tx: Tx,
  p: PlannedPayout,
  row: PayoutRow | undefined,
): Promise<CreateOutcome> {
  if (p.outcome !== 'open') {
    assert.ok(row !== undefined, 'a payout with an immediate outcome was written with its row');
    await enqueuePayoutResult(ctx, tx, row);
  }
  return { ok: true, payoutId: p.id, movementId: p.movementId, replayed: false };
}

/** Reserves and writes one planned payout in `tx`, under the wallet's lock (taken by the funds check). */
async function writePayout(ctx: AppContext, tx: Tx, p: PlannedPayout): Promise<CreateOutcome> {
  const { request } = p;
  const plan = await ctx.ledger.planReservations(tx, [reservationOf(p)]);
  const checked = plan.checked[0]!;
  if (!checked.ok) return refusalOf(tx, request, checked);
  const row = await writePayoutStatement(
    tx,
    p.row,
    plan.rows!,
    gatedMovementColumns([movementsOf(p, checked.journals)]),
    groupAuditEntries([{ ctx, target: p.id }]),
  );
  if (row === undefined) {
    // The order was taken by a request that committed while this one's insert waited: the whole statement wrote
    // nothing, and the winner decides the answer.
    const winner = await findPayoutByOrder(tx, request.accountId, request.kind, request.order);
    if (winner === undefined)
      throw new Error(`order ${request.order} conflicted but no payout holds it`);
    return answerForExisting(winner, request);
  }
  return writtenOf(ctx, tx, p, row);
}

/**
 * Writes a group's covered payouts by ONE statement, with their journals and movements, and answers their rows by
 * id (no order of the INSERT's output is relied on); only ids when every one is still open (its row unread).
 */
async function writeCovered(
  tx: Tx,
  items: readonly Queued[],
  checked: readonly CheckedReservation[],
  ledgerRows: JournalRows | null,
): Promise<ReadonlyMap<string, PayoutRow | undefined>> {
  const written = items.flatMap(({ ctx, planned: p }, i) => {
    const c = checked[i]!;
    return c.ok ? [{ ctx, p, journals: c.journals }] : [];
  });
  if (written.length === 0) return new Map();
  const answer = written.some(({ p }) => p.outcome !== 'open') ? 'rows' : 'ids';
  const rows = await writePayoutGroupStatement(
    tx,
    written.map(({ p }) => p.row),
    ledgerRows!,
    gatedMovementColumns(written.map(({ p, journals }) => movementsOf(p, journals))),
    groupAuditEntries(written.map(({ ctx, p }) => ({ ctx, target: p.id }))),
    answer,
  );
  return new Map(
    rows.map((row) => [row.id as string, answer === 'rows' ? (row as PayoutRow) : undefined]),
  );
}

export interface Queued {
  readonly ctx: AppContext;
  readonly planned: PlannedPayout;
}

/** Alone, in a transaction of its own: a group of one, or a payout of a failed group run again. */
async function writeAlone(item: Queued): Promise<CreateOutcome> {
  return inTransaction(item.ctx.db, (tx) => writePayout(item.ctx, tx, item.planned));
}

/**
 * Writes a group's payouts whose wallets `held` locks (every account they post to), in `tx`: the funds checks in
 * turn on the balances the ones before them leave, ONE statement for every payout that passed with its request's
 * audit row (payout-statement.ts, decision 565), and each answer; a refusal re-reads its order under the lock, as
 * alone.
 */
export async function writeHeld(
  tx: Tx,
  items: readonly Queued[],
  held: LockedAccounts,
): Promise<Settled<CreateOutcome>[]> {
  const plan = await items[0]!.ctx.ledger.planReservations(
    tx,
    items.map(({ planned }) => reservationOf(planned)),
    held,
  );
  const rows = await writeCovered(tx, items, plan.checked, plan.rows);
  const settled: Settled<CreateOutcome>[] = [];
  for (const [i, { ctx, planned }] of items.entries()) {
    const checked = plan.checked[i]!;
    settled.push({
      ok: true,
      value: checked.ok
        ? await writtenOf(ctx, tx, planned, rows.get(planned.id))
        : await refusalOf(tx, planned.request, checked),
    });
  }
  return settled;
}

/**
 * The lane of one account (decision 430): its payouts that queue while its group runs, written in one transaction
 * of four round trips whatever their number (decision 330): one statement locks every wallet of the group in the
 * ledger's order (waiting for a holder, which stalls only this account), writeHeld, and the commit. An account's
 * payouts come here when a shared group (payout-shared-group.ts, decision 590) could not take its rows without
 * waiting. When the group fails on what one payout can cause (an order already taken fails the group's statement,
 * a constraint), on the database not answering (an answer lost on the connection) or on a deadlock (mayRunAlone,
 * decision 630), the whole transaction rolled back, and each runs again alone, so only its own request answers the
 * failure or the taken order (a payout already committed by then is found by its order). Any other failure is
 * thrown to every request of the group.
 */
export async function writeAccountGroup(
  _accountId: string,
  items: readonly Queued[],
): Promise<readonly Settled<CreateOutcome>[]> {
  if (items.length === 1) return [{ ok: true, value: await writeAlone(items[0]!) }];
  const { db, ledger, logger } = items[0]!.ctx;
  return settleGroup(
    items,
    { noun: 'payouts', fallback: 'each runs again alone', logger },
    {
      together: () =>
        inTransaction(db, async (tx) =>
          writeHeld(
            tx,
            items,
            await ledger.lock(
              tx,
              items.flatMap((item) => accountsOf(item.planned)),
            ),
          ),
        ),
      retriable: mayRunAlone,
      fallback: () => settleEach(items, writeAlone),
    },
  );
}

/**
 * Order of the answers (pinned by the tests), all decided under the wallet's lock: an order taken answers before a
 * shortfall (a shortfall re-reads the order; a retry of a committed order finds its row taken by the gate's
 * conflict and reads the winner), and a shortfall before an order being taken at the same moment in another
 * currency (its own wallet lock), whose winner answers once it commits. Nothing is read before the lock: the
 * account's sandbox offset is kept in memory (decision 260), so a keyless payout is the funds check and one write.
 * A refusal writes nothing but the wallet's empty accounts the funds check may have created, so no savepoint is
 * needed to undo it. The grouped form (a request without an Idempotency-Key, the route's `grouped` runner): the
 * payout queues for the next group commit (payout-groups.ts).
 */
export async function createPayout(
  ctx: AppContext,
  request: PayoutRequest,
): Promise<CreateOutcome> {
  const planned = planPayout(
    ctx,
    request,
    await ctx.accountClock.now(request.accountId, ctx.db, { kept: true }),
  );
  return ctx.payoutGroups.run({ ctx, planned });
}

/**
 * The same payout in the caller's transaction `tx` (the runner's, with an Idempotency-Key, which stores the key in
 * the same commit), written at once: queued, it could wait behind a group that waits for the connection `tx`
 * holds (PGlite has one; a pool can run out).
 */
export async function createPayoutInTransaction(
  ctx: AppContext,
  tx: Tx,
  request: PayoutRequest,
): Promise<CreateOutcome> {
  return writePayout(
    ctx,
    tx,
    planPayout(ctx, request, await ctx.accountClock.now(request.accountId, tx, { kept: true })),
  );
}
