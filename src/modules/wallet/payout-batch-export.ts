// `cobro payouts export`: production payouts leave as a bank payroll file. One transaction claims the pending
// payouts (FOR UPDATE SKIP LOCKED, so two exports running at once never take the same payout), records the batch,
// and moves each payout to `processing` through transitionPayout; the file is then written from the database, so
// a file lost after the commit is written again with `--batch ID` and no payout is exported twice.
import { fintocSenders } from '../../platform/processors/fintoc-selection.ts';
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { newId } from '../../platform/ids/ids.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import { fintocLimits, limits } from '../../limits/index.ts';
import { renderPayrollCsv, type PayrollRecord } from './payout-batch-csv.ts';
import { transitionPayout } from './payout-transition.ts';
import type { PayoutRow } from './repository.ts';
import './types.ts';

export const payrollFormats = ['csv'] as const;
export type PayrollFormat = (typeof payrollFormats)[number];

interface ExportedBatch {
  readonly id: string;
  readonly bankSbif: string;
  readonly currency: string;
  readonly payoutCount: number;
  readonly amountMinorTotal: bigint;
  /** The accounts whose payouts the batch holds, each audited in its own chain (decision 675). */
  readonly accountIds: readonly string[];
  readonly csv: string;
}

export type ExportResult = { ok: true; batch: ExportedBatch | null } | { ok: false; error: string };

function payrollRecord(ctx: AppContext, batchId: string, p: PayoutRow): PayrollRecord {
  return {
    batch_id: batchId,
    payout_id: p.id,
    kind: p.kind,
    order: p.order,
    amount: BigInt(p.amount_minor).toString(),
    currency: p.currency,
    beneficiary_name: p.accountbank_name,
    beneficiary_rut: p.accountbank_rut,
    beneficiary_bank: p.accountbank_sbif,
    account_type: p.accountbank_type,
    account_number: p.accountbank_num,
    email: p.email,
    subject: p.subject,
    created_at: formatTimestamp(p.created_at, ctx.config.timeZone),
    status: '',
    reason: '',
  };
}

async function bankCurrency(ctx: AppContext, sbif: string): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('banks')
    .select('currency')
    .where('code', '=', sbif)
    .orderBy('currency')
    .executeTakeFirst();
  return row?.currency ?? null;
}

/** Claims up to payoutBatchRowsMax pending production payouts in the bank's currency; null when none wait. */
export async function exportPayoutBatch(
  ctx: AppContext,
  bankSbif: string,
  format: PayrollFormat,
): Promise<ExportResult> {
  const currency = await bankCurrency(ctx, bankSbif);
  if (currency === null)
    return { ok: false, error: `unknown bank code ${bankSbif} (see GET /api/banks)` };
  const batchId = await inTransaction(ctx.db, async (tx): Promise<string | null> => {
    // due_at IS NULL: sandbox payouts move on the sandbox clock and never wait for a bank file.
    const rows = await tx
      .selectFrom('payouts')
      .selectAll()
      .where('status', '=', 'pending')
      .where('due_at', 'is', null)
      .where('batch_id', 'is', null)
      .where('currency', '=', currency)
      // An account that sends CLP payouts as Fintoc transfers has them dispatched, not filed (decision 512), but
      // for one past Fintoc's largest transfer (decision 900).
      .$if(currency === 'CLP', (q) =>
        q.where((eb) =>
          eb.or([
            eb('kind', '=', 'refund'),
            eb('account_id', 'not in', fintocSenders(eb)),
            eb('amount_minor', '>', fintocLimits.transferAmountMaxMinor),
          ]),
        ),
      )
      .orderBy('created_at')
      .orderBy('id')
      .limit(limits.payoutBatchRowsMax)
      .forUpdate()
      .skipLocked()
      .execute();
    if (rows.length === 0) return null;
    const id = newId('pbt', 17);
    await tx
      .insertInto('payout_batches')
      .values({
        id,
        bank_sbif: bankSbif,
        format,
        payout_count: rows.length,
        created_at: ctx.clock.now(),
      })
      .execute();
    for (const row of rows) {
      await transitionPayout(ctx, tx, row, 'processing', {
        at: await ctx.accountClock.now(row.account_id, tx),
        dueAt: null,
      });
    }
    await tx
      .updateTable('payouts')
      .set({ batch_id: id })
      .where(
        'id',
        'in',
        rows.map((r) => r.id),
      )
      .execute();
    return id;
  });
  if (batchId === null) return { ok: true, batch: null };
  return batchFile(ctx, batchId);
}

/** The file of a batch already exported, written again from the database (no payout changes state). */
export async function batchFile(ctx: AppContext, batchId: string): Promise<ExportResult> {
  const batch = await ctx.db
    .selectFrom('payout_batches')
    .selectAll()
    .where('id', '=', batchId)
    .executeTakeFirst();
  if (batch === undefined) return { ok: false, error: `no payout batch with id ${batchId}` };
  const rows = await ctx.db
    .selectFrom('payouts')
    .selectAll()
    .where('batch_id', '=', batchId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const amountMinorTotal = rows.reduce((sum, r) => sum + BigInt(r.amount_minor), 0n);
  return {
    ok: true,
    batch: {
      id: batch.id,
      bankSbif: batch.bank_sbif,
      currency: rows[0]?.currency ?? '',
      payoutCount: rows.length,
      amountMinorTotal,
      accountIds: [...new Set(rows.map((r) => r.account_id))].sort(),
      csv: renderPayrollCsv(rows.map((r) => payrollRecord(ctx, batch.id, r))),
    },
  };
}
