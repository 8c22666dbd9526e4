// `cobro audit list|verify`: the audit trail (decision 531, docs/audit.md).
import { auditLimits } from '../../limits/index.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

export const auditList: Command = {
  name: 'audit list',
  summary: "An account's audit trail, newest first: who changed what, when, by which request",
  usage: 'cobro audit list --account ID [--limit N] [--before N] [--json]',
  options: {
    account: { type: 'string', valueName: 'ID', description: 'the account (or `service`)' },
    limit: {
      type: 'string',
      valueName: 'N',
      description: `how many rows (default ${auditLimits.listRowsDefault}, at most ${auditLimits.listRowsMax})`,
    },
    before: {
      type: 'string',
      valueName: 'N',
      description: 'only the rows before position N (the next page: the last position shown)',
    },
    json: { type: 'boolean', description: 'print the rows as JSON' },
  },
  examples: [
    'cobro audit list --account acc4f6c0e3d2b1a0987 --limit 20',
    'cobro audit list --account acc4f6c0e3d2b1a0987 --limit 20 --before 481',
  ],
  needsDb: true,
  readOnly: true,
  async run(ctxOrNull, args) {
    const ctx = requireCtx(ctxOrNull);
    const account = stringOption(args, 'account');
    if (account === undefined) return fail(`usage: ${this.usage}`, 2);
    const limitText = stringOption(args, 'limit') ?? String(auditLimits.listRowsDefault);
    const limit = /^\d{1,4}$/.test(limitText) ? Number(limitText) : 0;
    if (limit < 1 || limit > auditLimits.listRowsMax)
      return fail(`--limit must be 1 to ${auditLimits.listRowsMax}`, 2);
    const beforeText = stringOption(args, 'before');
    const positionPattern = new RegExp(`^[1-9][0-9]{0,${auditLimits.positionDigitsMax - 1}}$`);
    if (beforeText !== undefined && !positionPattern.test(beforeText))
      return fail(
        `--before must be a position: a whole number from 1, at most ${auditLimits.positionDigitsMax} digits`,
        2,
      );
    const before = beforeText === undefined ? undefined : BigInt(beforeText);
    const [{ listAudit }, { serviceChain }, { findAccountRowById }] = await Promise.all([
      import('../../platform/audit/list.ts'),
      import('../../platform/audit/record.ts'),
      import('../../modules/accounts/repository.ts'),
    ]);
    // A mistyped id is no account with an empty trail (decision 835), as for `keys list` and `users list`.
    if (account !== serviceChain && (await findAccountRowById(ctx.db, account)) === undefined)
      return fail(`no account with id ${account}`);
    const rows = await listAudit(ctx.db, account, limit, ctx.config.timeZone, before);
    if (args.values.json === true) return ok(JSON.stringify(rows));
    if (rows.length === 0) return ok(`no audit rows for ${account}`);
    return ok(
      rows
        .map((r) =>
          [
            r.position.padStart(6),
            r.at,
            r.actor.padEnd(18),
            r.action,
            r.target ?? '-',
            r.request_id ?? '-',
          ].join('  '),
        )
        .join('\n'),
    );
  },
};

export const auditVerify: Command = {
  name: 'audit verify',
  summary: 'Recompute every audit chain; exit 1 naming the first row that was changed or removed',
  usage: 'cobro audit verify [--json]',
  options: {
    json: { type: 'boolean', description: 'print {ok, chains, rows} or {ok, id, fault}' },
  },
  examples: ['cobro audit verify'],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const { verifyAudit } = await import('../../platform/audit/verify.ts');
    const result = await verifyAudit(requireCtx(ctx).db);
    if (args.values.json === true) {
      const text = JSON.stringify(result);
      return result.ok ? ok(text) : { exitCode: 1, stdout: `${text}\n`, stderr: '' };
    }
    if (!result.ok) return fail(`audit trail broken: ${result.fault}`);
    return ok(`audit trail intact: ${result.rows} rows in ${result.chains} chains`);
  },
};
