// `cobro fintoc reconcile --account ID`: matches the account's Fintoc movements with its payouts, withdrawals and
// sales paid through Fintoc and lists what does not match (decision 512). Exit code 1 when something is reported;
// such a run is still audited (decision 675).
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';
import { unknownAccount } from '../account-option.ts';

export const fintocReconcile: Command = {
  name: 'fintoc reconcile',
  summary:
    "Match an account's Fintoc movements with its payouts, withdrawals and sales; report the rest",
  usage: 'cobro fintoc reconcile --account ID [--json]',
  options: {
    account: { type: 'string', valueName: 'ID', description: 'the account id (acc...)' },
    json: { type: 'boolean', description: 'print the result as JSON' },
  },
  needsDb: true,
  async run(ctxOrNull, args) {
    const ctx = requireCtx(ctxOrNull);
    const accountId = stringOption(args, 'account');
    if (accountId === undefined) return fail(`usage: ${this.usage}`, 2);
    const missing = await unknownAccount(ctx, accountId);
    if (missing !== null) return missing;
    const { reconcileFintoc } = await import('../../modules/fintoc/reconcile.ts');
    const r = await reconcileFintoc(ctx, accountId);
    if (!r.ok) return fail(r.error, 2);
    const lines = r.findings.map(
      (f) => `${f.kind} ${f.subject} ${f.amountMinor.toString()} ${f.currency}: ${f.detail}`,
    );
    const out =
      args.values.json === true
        ? JSON.stringify({
            matched: r.matched,
            findings: r.findings.map((f) => ({ ...f, amountMinor: f.amountMinor.toString() })),
          })
        : [`${r.matched} matched, ${r.findings.length} reported`, ...lines].join('\n');
    // Exit 1 reports findings, but the run kept them (fintoc_movement_findings): its audit row is written all the same.
    return r.findings.length === 0 ? ok(out) : { ...ok(out), exitCode: 1, changed: true };
  },
};
