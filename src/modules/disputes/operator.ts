// What the operator records from the acquirer's reports (decision 530): a dispute opened or resolved, one row of
// a CSV batch at a time, each in its own transaction with its audit row (actor `operator`, decision 531). Each
// opening line of a file is keyed by the file's hash and its line number (decision 710): importing the same file
// again, after a run cut short, answers the lines that committed with their dispute and opens only the rest.
import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { Tx } from '../../platform/db/types.ts';
import { ApiError } from '../../platform/errors/errors.ts';
import { operatorActor } from '../../platform/audit/actor.ts';
import { recordAudit } from '../../platform/audit/record.ts';
import { disputeLimits } from '../../limits/index.ts';
import { isStorableText } from '../../platform/http/input-guards.ts';
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
    if (result.ok && result.already !== true)
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

/** One row's result: the dispute it opened or resolved, the one an earlier import opened, or why not. */
export interface ImportedRow {
  readonly line: number;
  readonly status: 'recorded' | 'already' | 'refused';
  readonly text: string;
}

type RowResult = Omit<ImportedRow, 'line'>;

const refused = (text: string): RowResult => ({ status: 'refused', text });

function amountOf(text: string | undefined): bigint | null {
  return text !== undefined && /^\d{1,14}$/.test(text) && BigInt(text) > 0n ? BigInt(text) : null;
}

async function resolveRow(ctx: AppContext, id: string, outcome: string | undefined) {
  if (outcome !== 'won' && outcome !== 'lost') return refused('outcome must be won or lost');
  const done = await operatorResolve(ctx, id, outcome);
  if (done.ok)
    return { status: 'recorded' as const, text: `${done.dispute.id} ${done.dispute.status}` };
  // The file imported again after a run cut short (decision 1145): a dispute that already has this very outcome was
  // this line's own work, not a refusal; another outcome still is one.
  if (done.failure.type === 'dispute_closed') {
    const row = await ctx.db
      .selectFrom('disputes')
      .select('status')
      .where('id', '=', id)
      .executeTakeFirst();
    if (row?.status === outcome)
      return { status: 'already' as const, text: `already ${outcome} ${id}` };
  }
  return refused(done.failure.message_error);
}

async function importRow(
  ctx: AppContext,
  row: Readonly<Record<string, string>>,
  operatorKey: string,
): Promise<RowResult> {
  if (row.dispute_id !== undefined && row.dispute_id !== '')
    return resolveRow(ctx, row.dispute_id, row.outcome);
  const amountMinor = amountOf(row.amount);
  const reason = (row.reason ?? '').trim();
  if (row.transaction_id === undefined || amountMinor === null || reason === '')
    return refused(
      'a row needs transaction_id, a positive whole amount and a reason (or dispute_id and outcome)',
    );
  if (reason.length > disputeLimits.reasonLengthMax)
    return refused(`reason has more than ${disputeLimits.reasonLengthMax} characters`);
  // A file may hold a NUL, which PostgreSQL refuses in text: the line is refused, not the run (decision 885).
  if (!isStorableText(reason)) return refused('reason has a character the database cannot store');
  const done = await operatorOpen(ctx, {
    accountId: null,
    transactionId: row.transaction_id,
    amountMinor,
    reason,
    operatorKey,
  });
  if (!done.ok) return refused(done.failure.message_error);
  return done.already === true
    ? { status: 'already', text: `already opened ${done.dispute.id}` }
    : { status: 'recorded', text: `${done.dispute.id} opened` };
}

/**
 * A CSV of the acquirer's report, header first: `transaction_id,amount,reason` rows open disputes,
 * `dispute_id,outcome` rows resolve them (both kinds may share a file with all five columns). Each row's result
 * goes to `onRow` as soon as it commits, so a run cut short has said how far it got.
 */
export async function importDisputes(
  ctx: AppContext,
  text: string,
  onRow: (row: ImportedRow) => void | Promise<void>,
): Promise<readonly ImportedRow[] | string> {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: true, bom: true, skip_empty_lines: true, trim: true });
  } catch (error) {
    return `not a CSV file: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (rows.length > disputeLimits.importRowsMax)
    return `the file has ${rows.length} rows; at most ${disputeLimits.importRowsMax}`;
  const fileHash = createHash('sha256').update(text).digest('hex');
  const results: ImportedRow[] = [];
  for (const [i, row] of rows.entries()) {
    const line = i + 2;
    let result: RowResult;
    try {
      result = await importRow(ctx, row, `import:${fileHash}:${line}`);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result = refused(error.message);
    }
    results.push({ line, ...result });
    await onRow({ line, ...result });
  }
  return results;
}
