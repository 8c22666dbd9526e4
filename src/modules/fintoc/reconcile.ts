// Reconciliation against the bank (issue 34 point 3, decision 512): the account's Fintoc movements, read through
// the client, are matched with what Cobro expects to see there: each payout or withdrawal sent as a Fintoc
// transfer (an outbound movement naming the transfer) and each sale paid through Fintoc (an inbound movement naming
// the payment intent). A transfer the receiving bank returned (decisions 830, 865) expects two movements, equal and
// opposite: the outbound payment and the inbound `transfer_return`. How a movement is read and matched is in
// reconcile-match.ts (Fintoc's Movement object, decision 750). A movement matching nothing is an
// `unmatched_movement`; an expected one still absent after fintocLimits.movementWindowMs a `missing_movement`; a
// payout whose transfer is `unresolved` (decision 750) an `unresolved_transfer`, and a refund of a Fintoc sale left
// unresolved (decision 785) an `unresolved_refund` (decision 850), a transfer result Fintoc reported for another amount
// or currency than its payout's, not applied, a `transfer_mismatch` (decision 992). Each finding is kept (fintoc_movement_findings,
// once per subject) and reported, never passed over silently.
import type { AppContext } from '../../platform/context.ts';
import type { Timestamp } from '../../platform/db/types.ts';
import { fintocLimits } from '../../limits/index.ts';
import { fintocAccount } from '../../platform/processors/fintoc-settings.ts';
import { unresolvedCondition } from '../refunds/unresolved.ts';
import {
  matchMovements,
  missingOf,
  type Expected,
  type Finding,
  type FindingKind,
} from './reconcile-match.ts';

interface FindingTable {
  account_id: string;
  subject: string;
  kind: FindingKind;
  amount_minor: string;
  currency: string;
  detail: string;
  found_at: Timestamp;
}

declare module '../../platform/db/types.ts' {
  interface Database {
    fintoc_movement_findings: FindingTable;
  }
}

export type ReconcileResult =
  | { readonly ok: true; readonly matched: number; readonly findings: readonly Finding[] }
  | { readonly ok: false; readonly error: string };

interface SentTransfer {
  readonly id: string;
  readonly kind: string;
  readonly amount_minor: bigint;
  readonly currency: string;
  readonly transfer_id: string | null;
  readonly state: string;
  readonly created_at: Date;
  readonly updated_at: Date;
}

/**
 * The movements a transfer leaves: its payment, and for a returned one also the return, inbound and equal, due from
 * when Cobro applied it (the row's `updated_at`: a decided row is written again only to learn its transfer id). A
 * payment older than the lookback is not listed by Fintoc, so only its return is expected then.
 */
function legsOf(p: SentTransfer, since: Date): Expected[] {
  const keys = [p.id, ...(p.transfer_id === null ? [] : [p.transfer_id])];
  const amountMinor = BigInt(p.amount_minor);
  const of = { subject: p.id, keys, currency: p.currency };
  const payment = { ...of, leg: p.id, amountMinor: -amountMinor, at: p.created_at, what: p.kind };
  if (p.state !== 'returned') return [payment];
  const back = {
    ...of,
    leg: `${p.id} return`,
    amountMinor,
    at: p.updated_at,
    what: `${p.kind} return`,
  };
  return p.created_at >= since ? [payment, back] : [back];
}

async function expectedOf(ctx: AppContext, accountId: string, since: Date): Promise<Expected[]> {
  const sent = await ctx.db
    .selectFrom('fintoc_transfers')
    .innerJoin('payouts', 'payouts.id', 'fintoc_transfers.payout_id')
    .select(['payouts.id', 'payouts.kind', 'payouts.amount_minor', 'payouts.currency'])
    .select(['fintoc_transfers.transfer_id', 'fintoc_transfers.state'])
    .select(['fintoc_transfers.created_at', 'fintoc_transfers.updated_at'])
    .where('fintoc_transfers.account_id', '=', accountId)
    .where('fintoc_transfers.state', 'in', ['sent', 'succeeded', 'returned'])
    .where((eb) =>
      eb.or([
        eb('fintoc_transfers.created_at', '>=', since),
        eb.and([
          eb('fintoc_transfers.state', '=', 'returned'),
          eb('fintoc_transfers.updated_at', '>=', since),
        ]),
      ]),
    )
    .execute();
  const sales = await ctx.db
    .selectFrom('processor_sessions')
    .innerJoin('transactions', 'transactions.id', 'processor_sessions.transaction_id')
    .select(['transactions.id', 'transactions.amount_minor', 'transactions.currency'])
    .select(['transactions.authorization_code', 'processor_sessions.attempt_id'])
    .select('processor_sessions.updated_at')
    .where('processor_sessions.account_id', '=', accountId)
    .where('processor_sessions.processor', '=', 'fintoc')
    .where('processor_sessions.state', '=', 'approved')
    .where('processor_sessions.updated_at', '>=', since)
    .execute();
  return [
    ...sent.flatMap((p) => legsOf(p, since)),
    ...sales.map((s) => ({
      subject: s.id,
      leg: s.id,
      keys: [s.attempt_id, ...(s.authorization_code === null ? [] : [s.authorization_code])],
      amountMinor: BigInt(s.amount_minor),
      currency: s.currency,
      at: s.updated_at,
      what: 'sale',
    })),
  ];
}

/**
 * Payouts the operator must look at: one still open whose transfer is `unresolved` (decision 750), and one given back
 * to the wallet by hand that Fintoc then reported paid (decision 875): the payee and the wallet both have the money.
 */
async function unresolvedOf(ctx: AppContext, accountId: string): Promise<Finding[]> {
  const rows = await ctx.db
    .selectFrom('fintoc_transfers')
    .innerJoin('payouts', 'payouts.id', 'fintoc_transfers.payout_id')
    .select(['payouts.id', 'payouts.kind', 'payouts.amount_minor', 'payouts.currency'])
    .select(['payouts.status', 'fintoc_transfers.state'])
    .where('fintoc_transfers.account_id', '=', accountId)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('fintoc_transfers.state', '=', 'unresolved'),
          eb('payouts.status', '=', 'processing'),
        ]),
        eb.and([
          eb('fintoc_transfers.state', '=', 'succeeded'),
          eb('payouts.status', 'in', ['banking_error', 'fraud_prevention']),
        ]),
      ]),
    )
    .limit(fintocLimits.movementsPerRunMax)
    .execute();
  return rows.map((p) => ({
    kind: 'unresolved_transfer',
    subject: p.id,
    amountMinor: -BigInt(p.amount_minor),
    currency: p.currency,
    detail:
      p.state === 'unresolved'
        ? `${p.kind} whose transfer Fintoc may have made: check Fintoc, then \`cobro payouts resolve\``
        : `${p.kind} given back to the wallet (${p.status}) whose transfer Fintoc reports succeeded: paid twice; recover it from the payee or the wallet`,
  }));
}

/**
 * Transfers a result was reported for with another amount or currency than the payout's (decision 992): not applied,
 * the operator's to check at Fintoc. Those sent within the lookback, and any whose payout is still open.
 */
async function mismatchesOf(ctx: AppContext, accountId: string, since: Date): Promise<Finding[]> {
  const rows = await ctx.db
    .selectFrom('fintoc_transfers')
    .innerJoin('payouts', 'payouts.id', 'fintoc_transfers.payout_id')
    .select(['payouts.id', 'payouts.kind', 'payouts.amount_minor', 'payouts.currency'])
    .select(['payouts.status', 'fintoc_transfers.mismatch'])
    .where('fintoc_transfers.account_id', '=', accountId)
    .where('fintoc_transfers.mismatch', 'is not', null)
    .where((eb) =>
      eb.or([
        eb('fintoc_transfers.created_at', '>=', since),
        eb('payouts.status', '=', 'processing'),
      ]),
    )
    .limit(fintocLimits.movementsPerRunMax)
    .execute();
  return rows.map((p) => ({
    kind: 'transfer_mismatch',
    subject: p.id,
    amountMinor: -BigInt(p.amount_minor),
    currency: p.currency,
    detail: `${p.kind} (${p.status}): ${p.mismatch ?? ''}; not applied: check Fintoc`,
  }));
}

/** Refunds of the account's Fintoc sales left unresolved (decision 785): the operator's to end (decision 850). */
async function unresolvedRefundsOf(ctx: AppContext, accountId: string): Promise<Finding[]> {
  const rows = await ctx.db
    .selectFrom('nullifications')
    .select(['nullifications.id', 'nullifications.amount_minor', 'nullifications.currency'])
    .select('nullifications.transaction_id')
    .where('nullifications.account_id', '=', accountId)
    .where(unresolvedCondition)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('processor_sessions')
          .select('processor_sessions.attempt_id')
          .whereRef('processor_sessions.transaction_id', '=', 'nullifications.transaction_id')
          .where('processor_sessions.processor', '=', 'fintoc')
          .where('processor_sessions.state', '=', 'approved'),
      ),
    )
    .limit(fintocLimits.movementsPerRunMax)
    .execute();
  return rows.map((r) => ({
    kind: 'unresolved_refund',
    subject: r.id,
    amountMinor: -BigInt(r.amount_minor),
    currency: r.currency,
    detail: `refund of sale ${r.transaction_id} Fintoc may have made: check Fintoc, then \`cobro refunds resolve\``,
  }));
}

async function keep(ctx: AppContext, accountId: string, f: Finding): Promise<void> {
  await ctx.db
    .insertInto('fintoc_movement_findings')
    .values({
      account_id: accountId,
      subject: f.subject,
      kind: f.kind,
      amount_minor: f.amountMinor.toString(),
      currency: f.currency,
      detail: f.detail,
      found_at: ctx.clock.now(),
    })
    .onConflict((oc) => oc.columns(['account_id', 'subject', 'kind']).doNothing())
    .execute();
}

export async function reconcileFintoc(
  ctx: AppContext,
  accountId: string,
): Promise<ReconcileResult> {
  const account = await fintocAccount(ctx, ctx.db, accountId);
  if (account?.sourceAccount == null)
    return { ok: false, error: `account ${accountId} has no Fintoc account (--fintoc-account)` };
  const now = ctx.clock.now();
  const since = new Date(now.getTime() - fintocLimits.reconcileLookbackMs);
  const movements = await account.api.listMovements(
    account.sourceAccount,
    { since: since.toISOString() },
    fintocLimits.movementsPerRunMax,
  );
  const expected = await expectedOf(ctx, accountId, since);
  const { seen, findings } = matchMovements(movements, expected);
  findings.push(...missingOf(expected, seen, now.getTime() - fintocLimits.movementWindowMs));
  findings.push(...(await unresolvedOf(ctx, accountId)));
  findings.push(...(await unresolvedRefundsOf(ctx, accountId)));
  findings.push(...(await mismatchesOf(ctx, accountId, since)));
  for (const f of findings) await keep(ctx, accountId, f);
  return { ok: true, matched: seen.size, findings };
}
