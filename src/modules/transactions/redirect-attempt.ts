// A payment whose payer authorises on the acquirer's own page (Webpay Plus), in the three steps of
// payment-attempt.ts, with the payer's trip in between:
//   start:  claim the transaction (lease: transactionLimits.acquirer.redirectLeaseMs), create the acquirer's transaction
//           outside any database transaction, keep its token (processor_sessions `redirected`); the payer leaves.
//   finish: the payer is back with the token: mark the session `committing` (lease renewed), commit outside any
//           transaction, and record the outcome, money and callback in one commit (recordOutcome).
//   a lost commit (timeout, network, crash): ask the acquirer's status before deciding (decision 150); if that is
//           lost too, the session stays `committing` and the `processor-commit-recovery` due work asks again.
//   abandon: the payer came back with TBK_TOKEN (or the acquirer's timeout): the transaction is rejected cleanly.
import type { Selectable } from 'kysely';
import type { AppContext } from '../../platform/context.ts';
import { newId } from '../../platform/ids/ids.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import type { ChargeOutcome, PaymentProcessor } from '../../platform/processors/processor.ts';
import {
  processorForAccount,
  type ProcessorSessionTable,
} from '../../platform/processors/account-processors.ts';
import { transactionLimits } from '../../limits/index.ts';
import { lockTransaction } from './repository.ts';
import {
  claimAttempt,
  recordAttempt,
  recordOutcome,
  releaseClaim,
  type AttemptOutcome,
} from './payment-attempt.ts';
import { recordRejection } from './transaction-result.ts';

export type RedirectStartOutcome =
  | AttemptOutcome
  | { readonly kind: 'redirect'; readonly url: string; readonly token: string };

export interface RedirectStartInput {
  readonly transactionId: string;
  readonly method: { readonly payment: number; readonly name: string };
  readonly processor: PaymentProcessor;
  readonly returnUrl: string;
}

export async function startRedirectPayment(
  ctx: AppContext,
  input: RedirectStartInput,
): Promise<RedirectStartOutcome> {
  const flow = input.processor.redirect;
  if (flow === undefined) throw new Error(`processor ${input.processor.name} has no redirect flow`);
  const attemptId = newId('att', 20);
  const claim = await claimAttempt(
    ctx,
    input.transactionId,
    attemptId,
    transactionLimits.acquirer.redirectLeaseMs,
  );
  if (claim.kind !== 'claimed') return claim;
  let started;
  try {
    started = await flow.start({
      attemptId,
      sessionId: input.transactionId,
      amountMinor: claim.amountMinor,
      currency: claim.currency,
      returnUrl: input.returnUrl,
    });
  } catch (error) {
    await releaseClaim(ctx, input.transactionId, attemptId);
    throw error;
  }
  const now = await ctx.accountClock.now(claim.accountId, ctx.db);
  await ctx.db
    .insertInto('processor_sessions')
    .values({
      attempt_id: attemptId,
      transaction_id: input.transactionId,
      account_id: claim.accountId,
      processor: input.processor.name,
      token: started.token,
      state: 'redirected',
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { kind: 'redirect', url: started.url, token: started.token };
}

type Session = Selectable<ProcessorSessionTable>;

export interface ReturnResult {
  /** null when the token names no payment of ours. */
  readonly transactionId: string | null;
  readonly outcome: AttemptOutcome;
}

async function lockSession(
  tx: Tx,
  by: { token?: string; attemptId?: string },
): Promise<Session | undefined> {
  let q = tx.selectFrom('processor_sessions').selectAll();
  if (by.token !== undefined) q = q.where('token', '=', by.token);
  else if (by.attemptId !== undefined) q = q.where('attempt_id', '=', by.attemptId);
  else return undefined;
  return q.forUpdate().executeTakeFirst();
}

/** The method the attempt was for: the transaction's fixed one, else Webpay (payment 1). */
async function methodOf(
  tx: Tx,
  session: Session,
  payment: number | null,
): Promise<{ payment: number; name: string }> {
  const code = payment === null || payment === 99 ? 1 : payment;
  const m = await tx
    .selectFrom('payment_methods')
    .innerJoin('transactions', 'transactions.currency', 'payment_methods.currency')
    .select('payment_methods.name')
    .where('transactions.id', '=', session.transaction_id)
    .where('payment_methods.payment', '=', code)
    .executeTakeFirst();
  return { payment: code, name: m?.name ?? 'Webpay' };
}

/** The payer is back with `token_ws`: commit once, ask the status if the answer is lost, then record. */
export async function finishRedirectPayment(
  ctx: AppContext,
  token: string,
  payerIp: string | null,
): Promise<ReturnResult> {
  const begun = await inTransaction(ctx.db, async (tx) => {
    const session = await lockSession(tx, { token });
    if (session === undefined) return { kind: 'unknown' } as const;
    const row = await lockTransaction(tx, session.transaction_id);
    if (row === undefined) throw new Error('session of a transaction that does not exist');
    if (
      session.state !== 'redirected' ||
      row.status !== 'pending' ||
      row.attempt_id !== session.attempt_id
    ) {
      // A reload of the return page, or the attempt lost its hold: never commit (an uncommitted Webpay payment is
      // reversed by Transbank), show what the transaction says.
      return {
        kind: 'done',
        session,
        status: row.status,
        committing: session.state === 'committing',
      } as const;
    }
    const now = await ctx.accountClock.now(row.account_id, tx);
    await tx
      .updateTable('processor_sessions')
      .set({ state: 'committing', updated_at: now })
      .where('attempt_id', '=', session.attempt_id)
      .execute();
    await tx
      .updateTable('transactions')
      .set({
        attempt_lease_until: new Date(now.getTime() + transactionLimits.acquirer.redirectLeaseMs),
      })
      .where('id', '=', row.id)
      .execute();
    return { kind: 'commit', session, method: await methodOf(tx, session, row.payment) } as const;
  });
  if (begun.kind === 'unknown')
    return { transactionId: null, outcome: { kind: 'final', status: 'rejected' } };
  if (begun.kind === 'done') {
    return {
      transactionId: begun.session.transaction_id,
      outcome: begun.committing ? { kind: 'in_progress' } : { kind: 'final', status: begun.status },
    };
  }
  const processor = await processorForAccount(ctx, begun.session.account_id);
  let outcome: ChargeOutcome | null;
  try {
    outcome = await processor.redirect!.commit(token);
  } catch (error) {
    ctx.logger.warn(
      { err: error, attempt: begun.session.attempt_id },
      'commit answer lost: asking the acquirer for the status',
    );
    outcome = await decidedByStatus(ctx, processor, token);
  }
  if (outcome === null)
    return { transactionId: begun.session.transaction_id, outcome: { kind: 'in_progress' } };
  return {
    transactionId: begun.session.transaction_id,
    outcome: await recordSession(ctx, begun.session, begun.method, outcome, payerIp),
  };
}

/** decision 150: the acquirer's record decides; null while it cannot be read (ask again later). */
async function decidedByStatus(
  ctx: AppContext,
  processor: PaymentProcessor,
  token: string,
): Promise<ChargeOutcome | null> {
  try {
    const status = await processor.redirect!.status(token);
    if (status.state === 'open') {
      // Nothing was committed, so nothing was charged: an uncommitted authorisation is reversed by Transbank.
      return {
        approved: false,
        payerMessage: 'Webpay no confirmó el pago; no se realizó ningún cobro.',
        gatewayMessage: 'Rechazo de transacción.',
        cardBrand: null,
        cardLast4: null,
      };
    }
    return status.outcome;
  } catch (error) {
    ctx.logger.warn(
      { err: error },
      'status of a lost commit unreadable: kept committing for the recovery due work',
    );
    return null;
  }
}

async function recordSession(
  ctx: AppContext,
  session: Session,
  method: { payment: number; name: string },
  outcome: ChargeOutcome,
  payerIp: string | null,
): Promise<AttemptOutcome> {
  const result = await recordOutcome(
    ctx,
    {
      transactionId: session.transaction_id,
      attemptId: session.attempt_id,
      method,
      installments: 0,
      payerIdentifier: null,
      payerBank: null,
      payerIp,
    },
    outcome,
  );
  await ctx.db
    .updateTable('processor_sessions')
    .set({ state: outcome.approved ? 'approved' : 'declined', updated_at: ctx.clock.now() })
    .where('attempt_id', '=', session.attempt_id)
    .where('state', '=', 'committing')
    .execute();
  return result;
}

/** The payer left the acquirer's page (TBK_TOKEN) or its form timed out (TBK_ORDEN_COMPRA only). */
export async function abandonRedirectPayment(
  ctx: AppContext,
  by: { token?: string; attemptId?: string },
  payerIp: string | null,
): Promise<ReturnResult> {
  return inTransaction(ctx.db, async (tx) => {
    const session = await lockSession(tx, by);
    if (session === undefined)
      return { transactionId: null, outcome: { kind: 'final', status: 'rejected' } };
    const row = await lockTransaction(tx, session.transaction_id);
    if (row === undefined) throw new Error('session of a transaction that does not exist');
    if (
      session.state !== 'redirected' ||
      row.status !== 'pending' ||
      row.attempt_id !== session.attempt_id
    ) {
      return { transactionId: row.id, outcome: { kind: 'final', status: row.status } };
    }
    const now = await ctx.accountClock.now(row.account_id, tx);
    const method = await methodOf(tx, session, row.payment);
    await tx
      .updateTable('processor_sessions')
      .set({ state: 'abandoned', updated_at: now })
      .where('attempt_id', '=', session.attempt_id)
      .execute();
    await recordAttempt(tx, {
      id: session.attempt_id,
      transaction_id: row.id,
      payment: method.payment,
      media: method.name,
      outcome: 'abandoned',
      gateway_message: 'aborted by payer',
      payer_message: 'Anulaste el pago en Webpay.',
      card_brand: null,
      card_last4: null,
      payer_ip: payerIp,
      created_at: now,
    });
    await recordRejection(
      tx,
      row,
      {
        reason: 'declined',
        gatewayMessage: 'aborted by payer',
        paidPayment: method.payment,
        media: method.name,
        cardBrand: null,
        cardLast4: null,
        payerIp,
      },
      now,
    );
    return {
      transactionId: row.id,
      outcome: {
        kind: 'declined',
        payerMessage: 'Anulaste el pago en Webpay: no se realizó ningún cobro.',
        attemptsLeft: 0,
      },
    };
  });
}

/**
 * Due work: sessions whose commit answer was lost and whose status could not be read then. Each is held for a
 * recheck period (its updated_at moves forward, claimed with SKIP LOCKED), its status read outside any
 * transaction, and the outcome recorded; the transaction's lease is renewed while the acquirer stays silent.
 */
export async function recoverLostCommits(
  ctx: AppContext,
  scope: { accountId?: string; limit: number },
): Promise<number> {
  let processed = 0;
  while (processed < scope.limit) {
    const claimed = await inTransaction(ctx.db, async (tx) => {
      const cutoff = new Date(
        ctx.clock.now().getTime() - transactionLimits.acquirer.commitRecheckMs,
      );
      let q = tx
        .selectFrom('processor_sessions')
        .selectAll()
        .where('state', '=', 'committing')
        .where('updated_at', '<=', cutoff);
      if (scope.accountId !== undefined) q = q.where('account_id', '=', scope.accountId);
      const session = await q
        .orderBy('updated_at')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (session === undefined) return undefined;
      const now = ctx.clock.now();
      await tx
        .updateTable('processor_sessions')
        .set({ updated_at: now })
        .where('attempt_id', '=', session.attempt_id)
        .execute();
      await tx
        .updateTable('transactions')
        .set({
          attempt_lease_until: new Date(now.getTime() + transactionLimits.acquirer.redirectLeaseMs),
        })
        .where('id', '=', session.transaction_id)
        .where('attempt_id', '=', session.attempt_id)
        .execute();
      const row = await tx
        .selectFrom('transactions')
        .select('payment')
        .where('id', '=', session.transaction_id)
        .executeTakeFirstOrThrow();
      return { session, method: await methodOf(tx, session, row.payment) };
    });
    if (claimed === undefined) break;
    const processor = await processorForAccount(ctx, claimed.session.account_id);
    const outcome = await decidedByStatus(ctx, processor, claimed.session.token);
    if (outcome !== null) await recordSession(ctx, claimed.session, claimed.method, outcome, null);
    processed++;
  }
  return processed;
}
