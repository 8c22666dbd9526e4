// Production payouts through bank files (docs/payouts-production.md): `payouts export` writes the pending payouts
// as a payroll CSV on stdout and moves them to processing; `payouts import` applies the bank's results.
import { limits } from '../../limits/index.ts';
import type { PayrollFormat } from '../../modules/wallet/payout-batch-export.ts';
import { fail, requireCtx, stringOption, type Command } from '../command.ts';
import { readFileBounded } from '../read-bounded.ts';

function problemLines(problems: readonly string[]): string {
  const shown = problems.slice(0, limits.payoutImportProblemLinesMax).join('\n');
  const rest = problems.length - limits.payoutImportProblemLinesMax;
  return rest > 0 ? `${shown}\n... and ${rest} more` : shown;
}

export const payoutsExport: Command = {
  name: 'payouts export',
  summary: 'Write pending production payouts as a bank payroll CSV (they become processing)',
  usage:
    'cobro payouts export --bank 0001 [--format csv] > nomina.csv   |   cobro payouts export --batch ID > nomina.csv',
  options: {
    bank: {
      type: 'string',
      valueName: 'CODE',
      description: 'the bank the payroll file is for, a code of GET /api/banks (0001)',
    },
    format: {
      type: 'string',
      valueName: 'FORMAT',
      description: 'the file format: csv (the default)',
    },
    batch: {
      type: 'string',
      valueName: 'ID',
      description: "write an earlier batch's file again, changing nothing",
    },
  },
  examples: [
    'cobro payouts export --bank 0001 --format csv > nomina.csv',
    'cobro payouts export --batch pbt3f6e0c1d2a9b8e7f1 > nomina.csv',
  ],
  needsDb: true,
  async run(ctx, args) {
    const { batchFile, exportPayoutBatch, payrollFormats } = await import(
      '../../modules/wallet/payout-batch-export.ts'
    );
    const bank = stringOption(args, 'bank')?.trim();
    const batchId = stringOption(args, 'batch')?.trim();
    const format = (stringOption(args, 'format') ?? 'csv').trim().toLowerCase();
    if ((bank === undefined) === (batchId === undefined))
      return fail(
        `give --bank (a new batch) or --batch (an earlier one's file)\nusage: ${this.usage}`,
        2,
      );
    if (!(payrollFormats as readonly string[]).includes(format))
      return fail(`--format must be one of ${payrollFormats.join(', ')}`, 2);
    const result =
      batchId !== undefined
        ? await batchFile(requireCtx(ctx), batchId)
        : await exportPayoutBatch(requireCtx(ctx), bank!, format as PayrollFormat);
    if (!result.ok) return fail(result.error, 2);
    const batch = result.batch;
    // No batch made, no payout moved: nothing for the audit trail (decision 940).
    if (batch === null)
      return {
        exitCode: 0,
        stdout: '',
        stderr: `no pending payouts to export for bank ${bank}\n`,
        unchanged: true,
      };
    const what = `batch ${batch.id} for bank ${batch.bankSbif}: ${batch.payoutCount} payouts, ${batch.amountMinorTotal} ${batch.currency}`;
    const note =
      batchId !== undefined
        ? `${what} (written again; no payout changed)`
        : `${what}, now processing; \`cobro payouts import FILE\` applies the bank's results`;
    // A new batch moved the payouts of each of its accounts: one audit row in each account's chain (decision 675),
    // in the order of their ids, as every writer of several chains takes their heads.
    const audited =
      batchId !== undefined
        ? [{ account: null, target: batch.id }]
        : batch.accountIds.map((account) => ({ account, target: batch.id }));
    return { exitCode: 0, stdout: batch.csv, stderr: `${note}\n`, audited };
  },
};

export const payoutsImport: Command = {
  name: 'payouts import',
  summary: "Apply a bank's results CSV to exported payouts (success / banking_error)",
  usage: 'cobro payouts import results.csv',
  options: {},
  operands: [
    {
      name: 'FILE',
      description: 'the results CSV: payout_id, status (success or banking_error), reason',
    },
  ],
  examples: ['cobro payouts import results.csv'],
  needsDb: true,
  readsFile: true,
  // Each line's payout moves in its own transaction with its audit row (decision 645): a file-wide transaction held
  // every wallet of the file until its end and deadlocked with an operator's `payouts resolve`.
  audit: 'own',
  async run(ctx, args) {
    const { importPayoutResults } = await import('../../modules/wallet/payout-batch-import.ts');
    const file = args.positionals[0];
    if (file === undefined || args.positionals.length > 1) return fail(`usage: ${this.usage}`, 2);
    const read = await readFileBounded(file, limits.payoutResultsFileBytesMax);
    if (!read.ok) return fail(read.error, 2);
    const result = await importPayoutResults(requireCtx(ctx), read.text);
    if (!result.ok)
      return fail(`${file} refused, no payout changed:\n${problemLines(result.errors)}`, 2);
    const s = result.summary;
    const stdout = `${s.resolved.success} success, ${s.resolved.banking_error} banking_error, ${s.alreadyResolved} already resolved, ${s.leftProcessing} left processing\n`;
    if (s.problems.length === 0) return { exitCode: 0, stdout, stderr: '' };
    return {
      exitCode: 1,
      stdout,
      stderr: `${s.problems.length} rows not applied:\n${problemLines(s.problems)}\n`,
    };
  },
};
