// `cobro refunds resolve`: the operator ends by hand a processor refund left unresolved (decision 820), as
// `cobro payouts resolve` ends a payout whose Fintoc transfer is unresolved (decision 750).
import type { OperatorOutcome } from '../../modules/refunds/refund-operator-resolve.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

export const refundsResolve: Command = {
  name: 'refunds resolve',
  summary:
    'End an unresolved processor refund by what the processor shows (succeeded, or failed: the money back)',
  usage: 'cobro refunds resolve ID --outcome succeeded|failed [--json]',
  options: {
    outcome: {
      type: 'string',
      valueName: 'OUTCOME',
      description:
        "what the processor shows: succeeded (the payer got it back) or failed (the merchant's money back) (required)",
    },
    json: { type: 'boolean', description: 'print the refund as one JSON object ({id, status})' },
  },
  operands: [
    {
      name: 'ID',
      description: 'the refund id (nul...), complete and no longer asked at the processor',
    },
  ],
  examples: [
    'cobro refunds resolve nul4f1c0e9a7b2d4c6e8f0a --outcome succeeded',
    'cobro refunds resolve nul4f1c0e9a7b2d4c6e8f0a --outcome failed --json',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    const outcome = stringOption(args, 'outcome');
    if (id === undefined || outcome === undefined) return fail(`usage: ${this.usage}`, 2);
    const { operatorOutcomes, resolveRefund } = await import(
      '../../modules/refunds/refund-operator-resolve.ts'
    );
    if (!(operatorOutcomes as readonly string[]).includes(outcome))
      return fail(`--outcome must be one of ${operatorOutcomes.join(', ')}`, 2);
    const result = await resolveRefund(requireCtx(ctx), id, outcome as OperatorOutcome);
    if (!result.ok) return fail(result.error);
    const refund = { account: result.refund.account_id, target: id };
    if (args.values.json === true)
      return ok(JSON.stringify({ id, status: result.refund.status }), refund);
    return ok(`refund ${id} is ${result.refund.status}`, refund);
  },
};
