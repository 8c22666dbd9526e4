// `cobro payouts import`: the bank's results for exported payouts. The whole file is checked before anything moves
// (a wrong header, status or missing reason refuses it all); then each payout is resolved in its own transaction
// through transitionPayout, with the ledger entries and the callback of the sandbox's resolution, and its audit row
// (the command records itself, decision 645). Importing a file again, or two imports at once, resolves each payout
// once: the row lock and its state decide, the rest is reported.
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { operatorActor } from '../../platform/audit/actor.ts';
import { recordAudit } from '../../platform/audit/record.ts';
import { limits } from '../../limits/index.ts';
import { parseCsvTable } from './payout-batch-csv.ts';
import { transitionPayout } from './payout-transition.ts';
import { lockPayout } from './repository.ts';

const resultStatuses = ['success', 'banking_error'] as const;
type ResultStatus = (typeof resultStatuses)[number];

interface ResultLine {
  readonly row: number;
  readonly payoutId: string;
  readonly status: ResultStatus;
  readonly reason: string;
  readonly batchId: string | null;
  readonly amount: string | null;
}

interface ImportSummary {
  readonly resolved: Readonly<Record<ResultStatus, number>>;
  /** Already in the state the file gives (an earlier import of the same results). */
  readonly alreadyResolved: number;
  /** Rows with an empty status: the bank has no result yet; the payout stays `processing`. */
  readonly leftProcessing: number;
  /** Rows that could not be applied, with why; the other rows were applied. */
  readonly problems: readonly string[];
}

export type ImportResult =
  | { ok: true; summary: ImportSummary }
  | { ok: false; errors: readonly string[] };

type Parsed = { lines: ResultLine[]; blank: number; errors: string[] };

function readLines(text: string): Parsed | { fatal: string } {
  const table = parseCsvTable(text);
  if (!table.ok) return { fatal: `not a readable CSV file: ${table.error}` };
  const col = (name: string) => table.header.indexOf(name);
  const [idCol, statusCol, reasonCol, batchCol, amountCol] = [
    'payout_id',
    'status',
    'reason',
    'batch_id',
    'amount',
  ].map(col) as [number, number, number, number, number];
  if (idCol < 0 || statusCol < 0)
    return {
      fatal: 'the header must name the columns payout_id and status (reason for banking_error)',
    };
  if (table.rows.length > limits.payoutBatchRowsMax)
    return { fatal: `at most ${limits.payoutBatchRowsMax} rows in one file` };
  const parsed: Parsed = { lines: [], blank: 0, errors: [] };
  const seen = new Set<string>();
  for (const [i, cells] of table.rows.entries()) {
    const row = i + 1;
    const cell = (c: number) => (c < 0 ? '' : (cells[c] ?? '').trim());
    const payoutId = cell(idCol);
    const status = cell(statusCol).toLowerCase();
    const reason = cell(reasonCol);
    if (payoutId === '' || payoutId.length > limits.payoutIdLengthMax) {
      parsed.errors.push(`row ${row}: payout_id is empty or too long`);
      continue;
    }
    if (seen.has(payoutId)) {
      parsed.errors.push(`row ${row}: payout ${payoutId} appears twice`);
      continue;
    }
    seen.add(payoutId);
    if (status === '') {
      parsed.blank++;
      continue;
    }
    if (status !== 'success' && status !== 'banking_error') {
      parsed.errors.push(`row ${row}: status must be success or banking_error, got "${status}"`);
      continue;
    }
    if (status === 'banking_error' && reason === '') {
      parsed.errors.push(`row ${row}: a banking_error needs the bank's reason`);
      continue;
    }
    if (reason.length > limits.payoutResultReasonLengthMax) {
      parsed.errors.push(
        `row ${row}: reason is longer than ${limits.payoutResultReasonLengthMax} characters`,
      );
      continue;
    }
    parsed.lines.push({
      row,
      payoutId,
      status,
      reason,
      batchId: cell(batchCol) || null,
      amount: cell(amountCol) || null,
    });
  }
  return parsed;
}

type LineOutcome = 'resolved' | 'already' | { problem: string };

async function applyLine(ctx: AppContext, line: ResultLine): Promise<LineOutcome> {
  return inTransaction(ctx.db, async (tx): Promise<LineOutcome> => {
    const payout = await lockPayout(tx, line.payoutId);
    const problem = (text: string) => ({
      problem: `row ${line.row}: payout ${line.payoutId} ${text}`,
    });
    if (payout === undefined) return problem('does not exist');
    if (payout.batch_id === null) return problem('was never exported in a bank file');
    if (line.batchId !== null && line.batchId !== payout.batch_id)
      return problem(`went out in batch ${payout.batch_id}, not ${line.batchId}`);
    if (line.amount !== null && line.amount !== BigInt(payout.amount_minor).toString())
      return problem(`is for ${payout.amount_minor}, the file says ${line.amount}`);
    if (payout.status === line.status) return 'already';
    if (payout.status !== 'processing') return problem(`is already ${payout.status}`);
    const at = await ctx.accountClock.now(payout.account_id, tx);
    await transitionPayout(ctx, tx, payout, line.status, { at, reason: line.reason });
    // The line's audit row in the line's own transaction (decision 645): the import records itself.
    await recordAudit(tx, {
      chain: payout.account_id,
      actor: operatorActor,
      action: 'cobro payouts import',
      target: payout.id,
      requestId: null,
      at: ctx.clock.now(),
    });
    return 'resolved';
  });
}

export async function importPayoutResults(ctx: AppContext, text: string): Promise<ImportResult> {
  const parsed = readLines(text);
  if ('fatal' in parsed) return { ok: false, errors: [parsed.fatal] };
  if (parsed.errors.length > 0) return { ok: false, errors: parsed.errors };
  const resolved: Record<ResultStatus, number> = { success: 0, banking_error: 0 };
  let alreadyResolved = 0;
  const problems: string[] = [];
  // One payout per transaction, as the sandbox resolves them: a payout's release locks its wallet and the bank
  // clearing account, and a file-wide transaction would hold every wallet in the file at once.
  for (const line of parsed.lines) {
    const outcome = await applyLine(ctx, line);
    if (outcome === 'resolved') resolved[line.status]++;
    else if (outcome === 'already') alreadyResolved++;
    else problems.push(outcome.problem);
  }
  return {
    ok: true,
    summary: { resolved, alreadyResolved, leftProcessing: parsed.blank, problems },
  };
}
