// The seams the payment flow calls (through extension.ts, the PaymentExtension) for a sale that names an event (decision 042): check the event takes sales,
// record a paid sale and how it divides, and move the beneficiaries' parts at settlement.
import assert from 'node:assert/strict';
import type { DbOrTx, Tx } from '../../platform/db/types.ts';
import { ruleFailure, type RuleFailure } from '../../platform/errors/errors.ts';
import {
  journalKinds,
  ledgerCodes,
  type Ledger,
  type PostedJournal,
} from '../../platform/ledger/ledger.ts';
import { divideEventSale } from './divide.ts';
import './types.ts';

interface SaleEvent {
  readonly id: string;
  readonly code: string;
  readonly name: string;
  readonly currency: string;
  readonly closingSalesAt: Date;
}

export type EventForSale =
  | { readonly ok: true; readonly event: SaleEvent }
  | { readonly ok: false; readonly reason: 'unknown' }
  | { readonly ok: false; readonly reason: 'closed' | 'currency'; readonly failure: RuleFailure };

/**
 * Whether a new transaction may sell for the merchant's event `eventCode` at `at` (the account's time), called in
 * the transaction-creation database transaction. Unknown events are the caller's validation error
 * (`event: not found`); after date_closing_sales, or in a currency other than the event's, the sale is refused
 * as a business rule. The first sale fixes the event's currency, so paymentData never adds two currencies.
 */
export async function resolveEventForSale(
  tx: Tx,
  accountId: string,
  eventCode: string,
  at: Date,
  currency: string,
): Promise<EventForSale> {
  const row = await tx
    .selectFrom('events')
    .select(['id', 'code', 'name', 'currency', 'closing_sales_at'])
    .where('account_id', '=', accountId)
    .where('code', '=', eventCode)
    .forUpdate()
    .executeTakeFirst();
  if (row === undefined) return { ok: false, reason: 'unknown' };
  if (at > row.closing_sales_at) {
    return {
      ok: false,
      reason: 'closed',
      failure: ruleFailure('event_sales_closed', { event: row.code }),
    };
  }
  if (row.currency !== null && row.currency !== currency) {
    return {
      ok: false,
      reason: 'currency',
      failure: ruleFailure('event_currency_mismatch', { event: row.code, currency: row.currency }),
    };
  }
  if (row.currency === null)
    await tx.updateTable('events').set({ currency }).where('id', '=', row.id).execute();
  return {
    ok: true,
    event: {
      id: row.id,
      code: row.code,
      name: row.name,
      currency,
      closingSalesAt: row.closing_sales_at,
    },
  };
}

export interface EventSaleInput {
  readonly accountId: string;
  readonly eventId: string;
  readonly transactionId: string;
  readonly currency: string;
  readonly grossMinor: bigint;
  /** The service's fee on this payment; the net is gross less fee. */
  readonly feeMinor: bigint;
  readonly at: Date;
}

export interface EventSaleSplit {
  readonly transactionId: string;
  readonly netMinor: bigint;
  /** What the beneficiaries get from this sale, together. */
  readonly affiliateMinor: bigint;
  /** What stays with the merchant: the net less the beneficiaries' parts. */
  readonly merchantMinor: bigint;
  readonly parts: readonly { readonly beneficiaryId: string; readonly amountMinor: bigint }[];
}

/**
 * Records a paid sale of the event, in the payment's own transaction, divided by divideEventSale. Recording the
 * same transaction twice returns the first split.
 */
export async function recordEventSale(tx: Tx, input: EventSaleInput): Promise<EventSaleSplit> {
  assert.ok(
    input.grossMinor > 0n && input.feeMinor >= 0n && input.feeMinor <= input.grossMinor,
    'fee within the gross',
  );
  const event = await tx
    .selectFrom('events')
    .select(['id', 'currency', 'service_sale_minor'])
    .where('id', '=', input.eventId)
    .where('account_id', '=', input.accountId)
    .forUpdate()
    .executeTakeFirst();
  assert.ok(event !== undefined, 'the sale names an event of the same account');
  const existing = await readSaleSplit(tx, input.transactionId);
  if (existing !== null) return existing;
  assert.equal(
    event.currency,
    input.currency,
    'the sale was resolved with resolveEventForSale, which fixed the currency',
  );
  const people = await tx
    .selectFrom('event_beneficiaries')
    .select(['id', 'bps'])
    .where('event_id', '=', event.id)
    .orderBy('position')
    .execute();
  const netMinor = input.grossMinor - input.feeMinor;
  const division = divideEventSale(
    netMinor,
    event.service_sale_minor,
    people.map((p) => ({ id: p.id, bps: p.bps })),
  );
  const { serviceMinor, parts, affiliateMinor } = division;
  await tx
    .insertInto('event_sales')
    .values({
      transaction_id: input.transactionId,
      event_id: event.id,
      account_id: input.accountId,
      currency: input.currency,
      gross_minor: input.grossMinor,
      fee_minor: input.feeMinor,
      net_minor: netMinor,
      service_sale_minor: serviceMinor,
      affiliate_minor: affiliateMinor,
      sold_at: input.at,
      settled_at: null,
    })
    .execute();
  if (parts.length > 0) {
    await tx
      .insertInto('event_sale_shares')
      .values(
        parts.map((p) => ({
          transaction_id: input.transactionId,
          beneficiary_id: p.beneficiaryId,
          amount_minor: p.amountMinor,
        })),
      )
      .execute();
  }
  return {
    transactionId: input.transactionId,
    netMinor,
    affiliateMinor,
    merchantMinor: division.merchantMinor,
    parts,
  };
}

async function readSaleSplit(db: DbOrTx, transactionId: string): Promise<EventSaleSplit | null> {
  const sale = await db
    .selectFrom('event_sales')
    .select(['net_minor', 'affiliate_minor', 'net_refunded_minor', 'affiliate_refunded_minor'])
    .where('transaction_id', '=', transactionId)
    .executeTakeFirst();
  if (sale === undefined) return null;
  const parts = await db
    .selectFrom('event_sale_shares as s')
    .innerJoin('event_beneficiaries as b', 'b.id', 's.beneficiary_id')
    .select(['s.beneficiary_id', 's.amount_minor', 's.refunded_minor'])
    .where('s.transaction_id', '=', transactionId)
    .orderBy('b.position')
    .execute();
  // What refunds took back is no longer anyone's to receive (decision 116).
  const netMinor = sale.net_minor - sale.net_refunded_minor;
  const affiliateMinor = sale.affiliate_minor - sale.affiliate_refunded_minor;
  return {
    transactionId,
    netMinor,
    affiliateMinor,
    merchantMinor: netMinor - affiliateMinor,
    parts: parts.map((p) => ({
      beneficiaryId: p.beneficiary_id,
      amountMinor: p.amount_minor - p.refunded_minor,
    })),
  };
}

export interface EventSaleSettlement {
  readonly split: EventSaleSplit;
  /** The journal that moved the beneficiaries' parts, or null when they were zero or already moved. */
  readonly journal: PostedJournal | null;
}

/** A beneficiary the last run paid is owed a part again: `pending` until the next run pays it (decision 940). */
async function owedAgain(tx: Tx, beneficiaryIds: readonly string[]): Promise<void> {
  await tx
    .updateTable('event_beneficiaries')
    .set({ status: 'pending' })
    .where('id', 'in', beneficiaryIds)
    .where('status', '=', 'paid')
    .execute();
}

/**
 * At the sale's settlement: moves the beneficiaries' parts out of the merchant's pending settlement into each
 * beneficiary's payable, to be paid on date_payment. The caller settles `split.merchantMinor` to the merchant as
 * for any payment. Runs once per sale; a later call returns the same split and no journal.
 */
export async function settleEventSale(
  ledger: Ledger,
  tx: Tx,
  input: { readonly accountId: string; readonly transactionId: string; readonly at: Date },
): Promise<EventSaleSettlement> {
  const sale = await tx
    .selectFrom('event_sales')
    .select(['event_id', 'currency', 'settled_at'])
    .where('transaction_id', '=', input.transactionId)
    .where('account_id', '=', input.accountId)
    .forUpdate()
    .executeTakeFirst();
  assert.ok(sale !== undefined, 'a settled sale was recorded first');
  const split = await readSaleSplit(tx, input.transactionId);
  assert.ok(split !== null);
  if (sale.settled_at !== null) return { split, journal: null };
  // Lock order, so this cannot deadlock on PostgreSQL: the merchant's pending settlement, then the event, then the
  // payables. A paid sale (recordSuccess) holds the pending settlement when it locks the event, and the payout run
  // (payouts.ts) holds the event when it locks the payables.
  await ledger.hold(tx, [
    { owner: input.accountId, code: ledgerCodes.pendingSettlement, currency: sale.currency },
  ]);
  await tx
    .selectFrom('events')
    .select('id')
    .where('id', '=', sale.event_id)
    .forUpdate()
    .executeTakeFirstOrThrow();
  await tx
    .updateTable('event_sales')
    .set({ settled_at: input.at })
    .where('transaction_id', '=', input.transactionId)
    .execute();
  const paid = split.parts.filter((p) => p.amountMinor > 0n);
  if (paid.length === 0) return { split, journal: null };
  const journal = await ledger.post(tx, {
    kind: journalKinds.eventSaleSplit,
    reference: input.transactionId,
    at: input.at,
    postings: [
      {
        owner: input.accountId,
        code: ledgerCodes.pendingSettlement,
        currency: sale.currency,
        amountMinor: -split.affiliateMinor,
      },
      ...paid.map((p) => ({
        owner: p.beneficiaryId,
        code: ledgerCodes.beneficiaryPayable,
        currency: sale.currency,
        amountMinor: p.amountMinor,
      })),
    ],
  });
  await owedAgain(
    tx,
    paid.map((p) => p.beneficiaryId),
  );
  // Money settled after the payout ran is paid by the next run, which is due at once.
  await tx
    .updateTable('events')
    .set({ payout_status: 'scheduled' })
    .where('id', '=', sale.event_id)
    .execute();
  return { split, journal };
}
