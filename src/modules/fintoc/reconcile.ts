// Reconciliation against the bank (issue 34 point 3, decision 512): the account's Fintoc movements, read through
// the client, are matched with what Cobro expects to see there: each payout or withdrawal sent as a Fintoc
// transfer (an outbound movement naming the transfer) and each sale paid through Fintoc (an inbound movement naming
// the payment intent). Fintoc's Movement object (docs.fintoc.com, "The Movement object"; decision 750) names what
// moved the money in `resource_id` and carries an unsigned `amount` whose sign is its `direction`; it has no
// metadata. A movement matching nothing is an `unmatched_movement`; an expected one still absent after
// fintocLimits.movementWindowMs a `missing_movement`; a payout whose transfer is `unresolved` (decision 750) an
// `unresolved_transfer`, and a refund of a Fintoc sale left unresolved (decision 785) an `unresolved_refund`
// (decision 850). Each finding is kept (fintoc_movement_findings, once per subject) and reported, never
// passed over silently.
import type { AppContext } from '../../platform/context.ts';
import type { Timestamp } from '../../platform/db/types.ts';
import { fintocLimits } from '../../limits/index.ts';
import { fintocAccount } from '../../platform/processors/fintoc-settings.ts';
import { unresolvedCondition } from '../refunds/unresolved.ts';

export type FindingKind =
  | 'unmatched_movement'
  | 'missing_movement'
  | 'unresolved_transfer'
  | 'unresolved_refund';

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

interface Finding {
  readonly kind: FindingTable['kind'];
  /** The movement's id (unmatched) or the payout or transaction id (missing). */
  readonly subject: string;
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly detail: string;
}

export type ReconcileResult =
  | { readonly ok: true; readonly matched: number; readonly findings: readonly Finding[] }
  | { readonly ok: false; readonly error: string };

interface Expected {
  readonly subject: string;
  readonly keys: readonly string[];
  readonly amountMinor: bigint;
  readonly currency: string;
  readonly at: Date;
  readonly what: string;
}

async function expectedOf(ctx: AppContext, accountId: string, since: Date): Promise<Expected[]> {
  const sent = await ctx.db
    .selectFrom('fintoc_transfers')
    .innerJoin('payouts', 'payouts.id', 'fintoc_transfers.payout_id')
    .select(['payouts.id', 'payouts.kind', 'payouts.amount_minor', 'payouts.currency'])
    .select(['fintoc_transfers.transfer_id', 'fintoc_transfers.created_at'])
    .where('fintoc_transfers.account_id', '=', accountId)
    .where('fintoc_transfers.state', 'in', ['sent', 'succeeded'])
    .where('fintoc_transfers.created_at', '>=', since)
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
    ...sent.map((p) => ({
      subject: p.id,
      keys: [p.id, ...(p.transfer_id === null ? [] : [p.transfer_id])],
      amountMinor: -BigInt(p.amount_minor),
      currency: p.currency,
      at: p.created_at,
      what: p.kind,
    })),
    ...sales.map((s) => ({
      subject: s.id,
      keys: [s.attempt_id, ...(s.authorization_code === null ? [] : [s.authorization_code])],
      amountMinor: BigInt(s.amount_minor),
      currency: s.currency,
      at: s.updated_at,
      what: 'sale',
    })),
  ];
}

/** What a movement names: the transfer or payment intent in its `resource_id`. */
function keysOf(m: Record<string, unknown>): string[] {
  return typeof m.resource_id === 'string' && m.resource_id !== '' ? [m.resource_id] : [];
}

/** A movement's amount signed as Cobro's ledger sees it: money out of the account negative. */
function signedAmountOf(m: Record<string, unknown>): bigint {
  const amount = BigInt(String(m.amount ?? 0));
  return m.direction === 'outbound' ? -amount : amount;
}

/** Payouts still open whose transfer is `unresolved` (decision 750): the operator's to settle. */
async function unresolvedOf(ctx: AppContext, accountId: string): Promise<Finding[]> {
  const rows = await ctx.db
    .selectFrom('fintoc_transfers')
    .innerJoin('payouts', 'payouts.id', 'fintoc_transfers.payout_id')
    .select(['payouts.id', 'payouts.kind', 'payouts.amount_minor', 'payouts.currency'])
    .where('fintoc_transfers.account_id', '=', accountId)
    .where('fintoc_transfers.state', '=', 'unresolved')
    .where('payouts.status', '=', 'processing')
    .limit(fintocLimits.movementsPerRunMax)
    .execute();
  return rows.map((p) => ({
    kind: 'unresolved_transfer',
    subject: p.id,
    amountMinor: -BigInt(p.amount_minor),
    currency: p.currency,
    detail: `${p.kind} whose transfer Fintoc may have made: check Fintoc, then \`cobro payouts resolve\``,
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
  const byKey = new Map<string, Expected>();
  for (const e of expected) for (const k of e.keys) byKey.set(k, e);
  const seen = new Set<string>();
  const findings: Finding[] = [];
  for (const m of movements) {
    const hit = keysOf(m)
      .map((k) => byKey.get(k))
      .find((e) => e !== undefined);
    const amountMinor = signedAmountOf(m);
    const matches = hit !== undefined && amountMinor === hit.amountMinor;
    // A second movement of one payout or sale is money that moved twice (decision 645), never a match.
    if (matches && !seen.has(hit.subject)) {
      seen.add(hit.subject);
      continue;
    }
    findings.push({
      kind: 'unmatched_movement',
      subject: String(m.id),
      amountMinor,
      currency: String(m.currency ?? ''),
      detail:
        hit === undefined
          ? 'no payout, withdrawal or sale of Cobro'
          : matches
            ? `a second movement of ${hit.what} ${hit.subject}`
            : `amount differs from ${hit.what} ${hit.subject}`,
    });
  }
  const windowStart = now.getTime() - fintocLimits.movementWindowMs;
  for (const e of expected)
    if (!seen.has(e.subject) && e.at.getTime() <= windowStart)
      findings.push({
        kind: 'missing_movement',
        subject: e.subject,
        amountMinor: e.amountMinor,
        currency: e.currency,
        detail: `${e.what} with no Fintoc movement`,
      });
  findings.push(...(await unresolvedOf(ctx, accountId)));
  findings.push(...(await unresolvedRefundsOf(ctx, accountId)));
  for (const f of findings) await keep(ctx, accountId, f);
  return { ok: true, matched: seen.size, findings };
}
