// What the operator records from the acquirer's reports (decision 530): a dispute opened or resolved, one row of
// a CSV batch at a time, each in its own transaction with its audit row (actor `operator`, decision 531).
import { parse } from 'csv-parse/sync';
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import { ApiError } from '../../platform/errors/errors.ts';
import { operatorActor } from '../../platform/audit/actor.ts';
import { recordAudit } from '../../platform/audit/record.ts';
import { disputeLimits } from '../../limits/index.ts';
import { openDispute, type DisputeResult, type OpenInput } from './open.ts';
import { resolveDispute } from './resolve.ts';
import type { DisputeOutcome } from './states.ts';

async function audited(
  ctx: AppContext,
  action: string,
  run: (tx: AppContext, db: Tx) => Promise<DisputeResult>,
): Promise<DisputeResult> {
  return inTransaction(ctx.db, async (db) => {
    const result = await run({ ...ctx, db }, db);
    if (result.ok)
      await recordAudit(db, {
        chain: result.dispute.account_id,
        actor: operatorActor,
        action,
        target: result.dispute.id,
        requestId: null,
        at: ctx.clock.now(),
      });
    return result;
  });
}

export function operatorOpen(ctx: AppContext, input: OpenInput): Promise<DisputeResult> {
  return audited(ctx, 'cobro disputes open', (tx, db) => openDispute(tx, db, input));
}

export function operatorResolve(
  ctx: AppContext,
  id: string,
  outcome: DisputeOutcome,
): Promise<DisputeResult> {
  return audited(ctx, 'cobro disputes resolve', (tx, db) =>
    resolveDispute(tx, db, { accountId: null, id, to: outcome }),
  );
}

/** One row's result: the dispute it opened or resolved, or why not. */
export interface ImportedRow {
  readonly line: number;
  readonly ok: boolean;
  readonly text: string;
}

function amountOf(text: string | undefined): bigint | null {
  return text !== undefined && /^\d{1,14}$/.test(text) && BigInt(text) > 0n ? BigInt(text) : null;
}

async function importRow(ctx: AppContext, row: Readonly<Record<string, string>>) {
  if (row.dispute_id !== undefined && row.dispute_id !== '') {
    const outcome = row.outcome;
    if (outcome !== 'won' && outcome !== 'lost') return `outcome must be won or lost`;
    const done = await operatorResolve(ctx, row.dispute_id, outcome);
    return done.ok ? `${done.dispute.id} ${done.dispute.status}` : done.failure.message_error;
  }
  const amountMinor = amountOf(row.amount);
  const reason = (row.reason ?? '').trim();
  if (row.transaction_id === undefined || amountMinor === null || reason === '')
    return 'a row needs transaction_id, a positive whole amount and a reason (or dispute_id and outcome)';
  if (reason.length > disputeLimits.reasonLengthMax)
    return `reason has more than ${disputeLimits.reasonLengthMax} characters`;
  const done = await operatorOpen(ctx, {
    accountId: null,
    transactionId: row.transaction_id,
    amountMinor,
    reason,
  });
  return done.ok ? `${done.dispute.id} opened` : done.failure.message_error;
}

/**
 * A CSV of the acquirer's report, header first: `transaction_id,amount,reason` rows open disputes,
 * `dispute_id,outcome` rows resolve them (both kinds may share a file with all five columns).
 */
export async function importDisputes(
  ctx: AppContext,
  text: string,
): Promise<readonly ImportedRow[] | string> {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: true, bom: true, skip_empty_lines: true, trim: true });
  } catch (error) {
    return `not a CSV file: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (rows.length > disputeLimits.importRowsMax)
    return `the file has ${rows.length} rows; at most ${disputeLimits.importRowsMax}`;
  const results: ImportedRow[] = [];
  for (const [i, row] of rows.entries()) {
    try {
      const text = await importRow(ctx, row);
      results.push({ line: i + 2, ok: / (opened|won|lost)$/.test(text), text });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      results.push({ line: i + 2, ok: false, text: error.message });
    }
  }
  return results;
}
