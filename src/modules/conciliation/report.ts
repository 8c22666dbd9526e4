// The conciliation report (reference §10.1; decision 120): one entry per settlement batch the account's settlement
// runs created in the range, each listing the transactions it settled. Every amount that says what reached the
// wallet is read from the ledger's postings, so the report's totals are the wallet's settlement credits to the peso.
import assert from 'node:assert/strict';
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx } from '../../platform/db/types.ts';
import { validationError } from '../../platform/errors/errors.ts';
import { formatDate, formatTimestamp } from '../../platform/time/time-format.ts';
import { conciliationLimits } from '../../limits/index.ts';
import { minorAsExactInteger, type ExactInteger } from '../../platform/money/json-number.ts';
import { conciliationRange, type DayRange } from './date-range.ts';
import { linesIn, type LineRow } from './repository.ts';

/**
 * Batch states of the reference (`deteined` sic). Cobro's batches settle into the wallet in their own commit
 * (`paid_out`), except an escrow account's, whose sales wait in its hold until released (`deteined`, decision 432).
 */
export const batchStatuses = ['pending', 'paid_out', 'deteined', 'returned'] as const;

/** Where a batch's money went: the wallet, or the escrow hold that still keeps some of it. */
const batchDestinies = ['wallet', 'escrow'] as const;

interface ConciliationLine {
  readonly transaction_id: string;
  readonly payment_key: string;
  readonly order: string;
  readonly start: string;
  readonly end: string;
  readonly deposit_date: string;
  readonly amount: number;
  readonly fee: number;
  readonly amount_deposit: number;
  readonly media: string;
}

export interface ConciliationBatch {
  readonly id: string;
  readonly created_at: string;
  /** Sums of a batch's lines: exact past 2^53 - 1 (91 sales of the largest amount pass it; decision 720). */
  readonly amount_available: ExactInteger;
  readonly amount_deposit: ExactInteger;
  readonly status: (typeof batchStatuses)[number];
  readonly destiny: (typeof batchDestinies)[number];
  readonly currency: string;
  readonly wallet: string | null;
  readonly transaction: ConciliationLine[];
}

function jsonInteger(value: bigint): number {
  assert.ok(
    value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER),
    'a reported amount fits a JSON integer',
  );
  return Number(value);
}

function lineOf(ctx: AppContext, row: LineRow): ConciliationLine {
  const tz = ctx.config.timeZone;
  assert.ok(
    row.ended_at !== null && row.settled_at !== null,
    'a settled transaction was paid and settled',
  );
  return {
    transaction_id: row.id,
    payment_key: row.payment_key,
    order: row.order,
    start: formatTimestamp(row.checkout_opened_at ?? row.created_at, tz),
    end: formatTimestamp(row.ended_at, tz),
    deposit_date: formatDate(row.settled_at, tz),
    amount: jsonInteger(row.amount_minor),
    fee: jsonInteger(row.fee_minor ?? 0n),
    amount_deposit: jsonInteger(row.wallet_minor + row.escrow_minor),
    media: row.media ?? '',
  };
}

/** The batches of the range with their lines; a range holding more than the report's bound is refused, never cut. */
async function conciliationReport(
  ctx: AppContext,
  db: DbOrTx,
  accountId: string,
  range: DayRange,
): Promise<ConciliationBatch[]> {
  const lines = await linesIn(
    db,
    accountId,
    range.from,
    range.before,
    conciliationLimits.transactionsMax + 1,
  );
  if (lines.length > conciliationLimits.transactionsMax) {
    throw validationError({
      date_end: `range settles more than ${conciliationLimits.transactionsMax} transactions; ask a shorter one`,
    });
  }
  const batches: LineRow[][] = [];
  for (const line of lines) {
    const last = batches.at(-1);
    if (last !== undefined && last[0]!.batch_id === line.batch_id) last.push(line);
    else batches.push([line]);
  }
  return batches.map((rows) => batchOf(ctx, rows));
}

/**
 * One batch: `amount_available` what it settled for the merchant (into the wallet or the escrow hold),
 * `amount_deposit` what of it reached the wallet (settled there, or released from the hold since); `deteined` in
 * `escrow` while the hold still keeps any of it, else `paid_out` to the `wallet` (decision 432).
 */
function batchOf(ctx: AppContext, rows: readonly LineRow[]): ConciliationBatch {
  const b = rows[0]!;
  let settledMinor = 0n;
  let paidOutMinor = 0n;
  let heldMinor = 0n;
  for (const r of rows) {
    settledMinor += r.wallet_minor + r.escrow_minor;
    paidOutMinor += r.wallet_minor + r.released_minor;
    heldMinor += r.held_minor;
  }
  assert.ok(
    paidOutMinor + heldMinor <= settledMinor,
    'a batch pays out and holds at most what it settled',
  );
  return {
    id: b.batch_id,
    created_at: formatTimestamp(b.batch_created_at, ctx.config.timeZone),
    amount_available: minorAsExactInteger(settledMinor),
    amount_deposit: minorAsExactInteger(paidOutMinor),
    status: heldMinor > 0n ? 'deteined' : 'paid_out',
    destiny: heldMinor > 0n ? 'escrow' : 'wallet',
    currency: b.batch_currency,
    wallet: null,
    transaction: rows.map((r) => lineOf(ctx, r)),
  };
}

/** The report of an account for two days as the request gave them: checked against the account's today, then read. */
export async function conciliationFor(
  ctx: AppContext,
  accountId: string,
  dateInit: string,
  dateEnd: string,
): Promise<{ readonly range: DayRange; readonly batches: ConciliationBatch[] }> {
  const today = formatDate(await ctx.accountClock.now(accountId, ctx.db), ctx.config.timeZone);
  const range = conciliationRange(dateInit, dateEnd, today, ctx.config.timeZone);
  return { range, batches: await conciliationReport(ctx, ctx.db, accountId, range) };
}
