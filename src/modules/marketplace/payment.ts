// The seams the payment flow calls (through extension.ts, the PaymentExtension) for a transaction created with `marketplace` (a membership token): check the
// membership may take payments, record how a paid transaction's net divides, and move the clients' parts into
// their payables at settlement. Deposits to the clients' banks follow in deposits.ts.
import assert from 'node:assert/strict';
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import { ruleFailure, type RuleFailure } from '../../platform/errors/errors.ts';
import {
  journalKinds,
  ledgerCodes,
  type Ledger,
  type PostedJournal,
} from '../../platform/ledger/ledger.ts';
import { limits } from '../../limits/index.ts';
import { divideMarketplaceNet } from './divide.ts';
import { findMembershipByToken, membershipClients } from './repository.ts';
import './types.ts';

interface MarketplaceSplit {
  readonly membershipId: string;
  readonly merchantBps: number;
  readonly parts: readonly { readonly clientId: string; readonly bps: number }[];
}

export type MarketplaceForPayment =
  | ({ readonly ok: true } & MarketplaceSplit)
  | { readonly ok: false; readonly reason: 'unknown' }
  | { readonly ok: false; readonly reason: 'suspended'; readonly failure: RuleFailure };

/**
 * Whether a new transaction may pay through the membership whose token the merchant sent as `marketplace`.
 * An unknown token is the caller's validation error (`marketplace: invalid`); a suspended membership, or one with
 * a suspended client, is refused as a business rule.
 */
export async function resolveMarketplaceForPayment(
  db: DbOrTx,
  accountId: string,
  token: string,
): Promise<MarketplaceForPayment> {
  const membership = await findMembershipByToken(db, accountId, token);
  if (membership === undefined) return { ok: false, reason: 'unknown' };
  if (membership.status !== 'register') {
    return {
      ok: false,
      reason: 'suspended',
      failure: ruleFailure('marketplace_suspended', { membershipId: membership.id }),
    };
  }
  const clients = await membershipClients(db, membership.id);
  const suspended = clients.find((c) => c.status !== 'register');
  if (suspended !== undefined) {
    return {
      ok: false,
      reason: 'suspended',
      failure: ruleFailure('marketplace_suspended', {
        membershipId: membership.id,
        clientId: suspended.id,
      }),
    };
  }
  return {
    ok: true,
    membershipId: membership.id,
    merchantBps: membership.merchant_bps,
    parts: clients.map((c) => ({ clientId: c.id, bps: c.bps })),
  };
}

export interface MarketplaceShares {
  readonly transactionId: string;
  readonly netMinor: bigint;
  readonly merchantMinor: bigint;
  readonly parts: readonly { readonly clientId: string; readonly amountMinor: bigint }[];
}

/**
 * Records, in the payment's own database transaction, how the paid transaction's net divides between the
 * merchant and the membership's clients; each client's share starts `pending`. Recording twice returns the first.
 */
export async function recordMarketplaceShares(
  tx: Tx,
  input: {
    readonly accountId: string;
    readonly membershipId: string;
    readonly transactionId: string;
    readonly currency: string;
    readonly netMinor: bigint;
    readonly at: Date;
  },
): Promise<MarketplaceShares> {
  assert.ok(input.netMinor >= 0n, 'a net is not negative');
  const existing = await readMarketplaceShares(tx, input.transactionId);
  if (existing !== null) return existing;
  const membership = await tx
    .selectFrom('ma_memberships')
    .select(['id', 'merchant_bps'])
    .where('id', '=', input.membershipId)
    .where('account_id', '=', input.accountId)
    .executeTakeFirst();
  assert.ok(membership !== undefined, 'the payment names a membership of the same account');
  const clients = await membershipClients(tx, membership.id);
  const { merchantMinor, parts } = divideMarketplaceNet(
    input.netMinor,
    membership.merchant_bps,
    clients.map((c) => ({ clientId: c.id, bps: c.bps })),
  );
  await tx
    .insertInto('ma_payments')
    .values({
      transaction_id: input.transactionId,
      account_id: input.accountId,
      membership_id: membership.id,
      currency: input.currency,
      net_minor: input.netMinor,
      merchant_minor: merchantMinor,
      created_at: input.at,
      settled_at: null,
    })
    .execute();
  await tx
    .insertInto('ma_payment_shares')
    .values(
      clients.map((c, i) => ({
        transaction_id: input.transactionId,
        client_id: c.id,
        membership_id: membership.id,
        account_id: input.accountId,
        currency: input.currency,
        bps: c.bps,
        amount_minor: parts[i]!.amountMinor,
        status: 'pending' as const,
        deposit_due_at: null,
        created_at: input.at,
        liquidated_at: null,
        deposit_started_at: null,
        paid_at: null,
      })),
    )
    .execute();
  return { transactionId: input.transactionId, netMinor: input.netMinor, merchantMinor, parts };
}

export async function readMarketplaceShares(
  db: DbOrTx,
  transactionId: string,
): Promise<MarketplaceShares | null> {
  const payment = await db
    .selectFrom('ma_payments')
    .select(['net_minor', 'merchant_minor', 'refunded_minor', 'merchant_refunded_minor'])
    .where('transaction_id', '=', transactionId)
    .executeTakeFirst();
  if (payment === undefined) return null;
  const shares = await db
    .selectFrom('ma_payment_shares as s')
    .innerJoin('ma_membership_clients as mc', (j) =>
      j.onRef('mc.membership_id', '=', 's.membership_id').onRef('mc.client_id', '=', 's.client_id'),
    )
    .select(['s.client_id', 's.amount_minor', 's.refunded_minor'])
    .where('s.transaction_id', '=', transactionId)
    .orderBy('mc.position')
    .execute();
  // What refunds took back is no longer anyone's to receive (decision 116).
  return {
    transactionId,
    netMinor: payment.net_minor - payment.refunded_minor,
    merchantMinor: payment.merchant_minor - payment.merchant_refunded_minor,
    parts: shares.map((s) => ({
      clientId: s.client_id,
      amountMinor: s.amount_minor - s.refunded_minor,
    })),
  };
}

/**
 * At the transaction's settlement: moves each client's part out of the merchant's pending settlement into the
 * client's payable (`liquidate`), due for deposit a day later (limits.clientDepositDelayMs). The caller settles `shares.merchantMinor` to the
 * merchant as for any payment. Runs once per transaction; a later call returns the same shares and no journal.
 */
export async function settleMarketplaceShares(
  ledger: Ledger,
  tx: Tx,
  input: { readonly accountId: string; readonly transactionId: string; readonly at: Date },
): Promise<{ readonly shares: MarketplaceShares; readonly journal: PostedJournal | null }> {
  const payment = await tx
    .selectFrom('ma_payments')
    .select(['currency', 'settled_at'])
    .where('transaction_id', '=', input.transactionId)
    .where('account_id', '=', input.accountId)
    .forUpdate()
    .executeTakeFirst();
  assert.ok(payment !== undefined, 'a settled marketplace payment was recorded first');
  const shares = await readMarketplaceShares(tx, input.transactionId);
  assert.ok(shares !== null);
  if (payment.settled_at !== null) return { shares, journal: null };
  await tx
    .updateTable('ma_payments')
    .set({ settled_at: input.at })
    .where('transaction_id', '=', input.transactionId)
    .execute();
  await tx
    .updateTable('ma_payment_shares')
    .set({
      status: 'liquidate',
      liquidated_at: input.at,
      deposit_due_at: new Date(input.at.getTime() + limits.clientDepositDelayMs),
    })
    .where('transaction_id', '=', input.transactionId)
    .where('status', '=', 'pending')
    .execute();
  const paid = shares.parts.filter((p) => p.amountMinor > 0n);
  if (paid.length === 0) return { shares, journal: null };
  const clientsMinor = paid.reduce((sum, p) => sum + p.amountMinor, 0n);
  const journal = await ledger.post(tx, {
    kind: journalKinds.marketplaceSplit,
    reference: input.transactionId,
    at: input.at,
    postings: [
      {
        owner: input.accountId,
        code: ledgerCodes.pendingSettlement,
        currency: payment.currency,
        amountMinor: -clientsMinor,
      },
      ...paid.map((p) => ({
        owner: p.clientId,
        code: ledgerCodes.clientPayable,
        currency: payment.currency,
        amountMinor: p.amountMinor,
      })),
    ],
  });
  return { shares, journal };
}
