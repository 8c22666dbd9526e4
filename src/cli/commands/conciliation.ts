// `cobro conciliation export`: an account's conciliation report as CSV on stdout, the same lines as
// GET /api/conciliation.csv (decision 121), under the same date rules (--from is date_init, --to date_end).
// Services are imported inside run(), so `cobro --help` loads no database code (test/cli/startup.test.ts).
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

const optionOf: Readonly<Record<string, string>> = { date_init: '--from', date_end: '--to' };

export const conciliationExport: Command = {
  name: 'conciliation export',
  summary:
    "Write an account's settlement batches of a date range as CSV (UTF-8 with BOM, `;` between fields)",
  usage:
    'cobro conciliation export --account ID --from YYYY-MM-DD --to YYYY-MM-DD > conciliation.csv',
  options: { account: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } },
  needsDb: true,
  async run(ctxOrNull, args) {
    const ctx = requireCtx(ctxOrNull);
    const { findAccountRowById } = await import('../../modules/accounts/repository.ts');
    const { conciliationCsv } = await import('../../modules/conciliation/csv.ts');
    const { conciliationFor } = await import('../../modules/conciliation/report.ts');
    const { ApiError } = await import('../../platform/errors/errors.ts');
    const accountId = stringOption(args, 'account');
    const from = stringOption(args, 'from');
    const to = stringOption(args, 'to');
    if (accountId === undefined || from === undefined || to === undefined)
      return fail(`usage: ${this.usage}`, 2);
    if ((await findAccountRowById(ctx.db, accountId)) === undefined)
      return fail(`no account with id ${accountId}`);
    try {
      const { batches } = await conciliationFor(ctx, accountId, from, to);
      return ok(conciliationCsv(batches));
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== 'validation_failed') throw error;
      const problems = Object.entries((error.extra.errors ?? {}) as Record<string, string>);
      return fail(
        problems.map(([field, problem]) => `${optionOf[field] ?? field}: ${problem}`).join('\n'),
        2,
      );
    }
  },
};
