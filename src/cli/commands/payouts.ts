import type { OperatorTarget } from '../../modules/wallet/payout-operator-resolve.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';

export const payoutsResolve: Command = {
  name: 'payouts resolve',
  summary: 'Move a payout or withdrawal on (processing, success, banking_error, fraud_prevention)',
  usage:
    'cobro payouts resolve ID --status success|processing|banking_error|fraud_prevention [--reason TEXT]',
  options: {
    status: {
      type: 'string',
      valueName: 'STATE',
      description:
        'the new state: processing, success, banking_error or fraud_prevention (required)',
    },
    reason: {
      type: 'string',
      valueName: 'TEXT',
      description: 'the rejection reason the merchant sees (banking_error)',
    },
  },
  operands: [{ name: 'ID', description: 'the payout or withdrawal id' }],
  examples: [
    'cobro payouts resolve 3b5c9e0f2a1d --status success',
    'cobro payouts resolve 3b5c9e0f2a1d --status banking_error --reason "Cuenta cerrada"',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    const status = stringOption(args, 'status');
    if (id === undefined || status === undefined) return fail(`usage: ${this.usage}`, 2);
    const { operatorTargets, resolvePayout } = await import(
      '../../modules/wallet/payout-operator-resolve.ts'
    );
    if (!(operatorTargets as readonly string[]).includes(status))
      return fail(`--status must be one of ${operatorTargets.join(', ')}`, 2);
    const result = await resolvePayout(
      requireCtx(ctx),
      id,
      status as OperatorTarget,
      stringOption(args, 'reason') ?? null,
    );
    if (!result.ok) return fail(result.error);
    return ok(`payout ${result.payout.id} is ${result.payout.status}`, {
      account: result.payout.account_id,
      target: result.payout.id,
    });
  },
};

export const payoutsReturn: Command = {
  name: 'payouts return',
  summary:
    'A paid payout the bank sent back (not a Fintoc transfer): success -> banking_error, money back to the wallet',
  usage: 'cobro payouts return ID --reason TEXT',
  options: {
    reason: {
      type: 'string',
      valueName: 'TEXT',
      description:
        "the bank's reason for the return, the rejection reason the merchant sees (required)",
    },
  },
  operands: [
    {
      name: 'ID',
      description: 'the payout or withdrawal id, paid through a bank file or by `payouts resolve`',
    },
  ],
  examples: ['cobro payouts return mor33e36b01e8a11b9ee --reason "Cuenta cerrada"'],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    const reason = stringOption(args, 'reason')?.trim();
    if (id === undefined || args.positionals.length > 1 || reason === undefined)
      return fail(`usage: ${this.usage}`, 2);
    const { returnPayout, returnReasonProblem } = await import(
      '../../modules/wallet/payout-return.ts'
    );
    const problem = returnReasonProblem(reason);
    if (problem !== null) return fail(problem, 2);
    const result = await returnPayout(requireCtx(ctx), id, reason);
    if (!result.ok) return fail(result.error);
    const p = result.payout;
    return ok(
      `payout ${p.id} returned: ${p.amount_minor} ${p.currency} back in the wallet, now ${p.status}`,
      { account: p.account_id, target: p.id },
    );
  },
};
