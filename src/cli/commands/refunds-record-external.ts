// `cobro refunds record-external`: the operator records a refund the merchant already made at the acquirer
// (Transbank's portal, Fintoc's dashboard), so Cobro's books stop counting that money as the merchant's (decision
// 1025). The same money, sale status, callback and audit row as `POST /api/nullification`; nothing is sent.
import { refundLimits } from '../../limits/index.ts';
import {
  amountOptionMinor,
  amountOptionText,
  fail,
  ok,
  requireCtx,
  stringOption,
  type Command,
} from '../command.ts';

export const refundsRecordExternal: Command = {
  name: 'refunds record-external',
  summary:
    'Record a refund the merchant already made at the acquirer (Transbank portal): the money, the sale and the callback, nothing sent',
  usage: 'cobro refunds record-external ID --amount N --reference TEXT [--json]',
  options: {
    amount: {
      type: 'string',
      valueName: 'MINOR',
      description: 'what the acquirer gave back, a positive whole amount in minor units (required)',
    },
    reference: {
      type: 'string',
      valueName: 'TEXT',
      description: `the acquirer's or your name for that refund, 1 to ${refundLimits.externalReferenceLengthMax} characters; run again with it, nothing is recorded twice (required)`,
    },
    json: {
      type: 'boolean',
      description:
        'print the refund as one JSON object ({id, transaction_id, amount, status, already})',
    },
  },
  operands: [{ name: 'ID', description: 'the sale refunded at the acquirer (trx...)' }],
  examples: [
    'cobro refunds record-external trx3b4d77b43acd9a720 --amount 10000 --reference "Transbank portal 2026-03-10"',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    const amountText = stringOption(args, 'amount');
    const reference = stringOption(args, 'reference')?.trim();
    if (id === undefined || amountText === undefined || reference === undefined)
      return fail(`usage: ${this.usage}`, 2);
    const amountMinor = amountOptionMinor(amountText);
    if (amountMinor === null) return fail(amountOptionText, 2);
    if (
      reference === '' ||
      reference.length > refundLimits.externalReferenceLengthMax ||
      !reference.isWellFormed() ||
      reference.includes('\u0000')
    )
      return fail(
        `--reference must have 1 to ${refundLimits.externalReferenceLengthMax} characters`,
        2,
      );
    const { recordExternalRefund } = await import('../../modules/refunds/refund-external.ts');
    const result = await recordExternalRefund(requireCtx(ctx), {
      transactionId: id,
      amountMinor,
      reference,
    });
    if (!result.ok) return fail(result.error);
    const { refund, already } = result;
    const output =
      args.values.json === true
        ? ok(
            JSON.stringify({
              id: refund.id,
              transaction_id: refund.transaction_id,
              amount: refund.amount_minor.toString(),
              status: refund.status,
              already,
            }),
            { account: refund.account_id, target: refund.id },
          )
        : ok(
            already
              ? `already recorded: refund ${refund.id} of ${refund.amount_minor} ${refund.currency} for ${id} (--reference ${reference}) is ${refund.status}; nothing recorded now`
              : `recorded refund ${refund.id} of ${refund.amount_minor} ${refund.currency} for ${id} made outside Cobro: ${refund.status}, nothing sent to the processor`,
            { account: refund.account_id, target: refund.id },
          );
    // The same reference again records nothing, so it writes no audit row either (decision 810).
    return already ? { ...output, unchanged: true } : output;
  },
};
