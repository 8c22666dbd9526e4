// `cobro refunds list|show`: the operator's view of refunds (nullifications) across accounts (docs/refunds.md).
import { limits } from '../../limits/index.ts';
import type { RefundDetail, RefundSummary } from '../../modules/refunds/operator.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';
import { isOutput, pageText, pageWindow, statusOption } from '../paging.ts';
import { bankAccountArgs, bankAccountOptions } from './accounts-bank.ts';
import { unknownAccount } from '../account-option.ts';

const statusWords =
  'pending|awaiting_funds|waiting_bank_details|complete|reverse_deleted|reverse_completed';

function line(r: RefundSummary): string {
  return [
    r.id,
    // An unresolved refund is `complete` and waits on the operator (decision 850): the line says so.
    (r.unresolved ? `${r.status}, unresolved` : r.status).padEnd(20),
    `${r.amount} ${r.currency}`.padStart(14),
    r.account_id,
    r.transaction_id,
    `order ${r.order}`,
    r.created_at,
  ].join('  ');
}

export const refundsList: Command = {
  name: 'refunds list',
  summary: 'List refunds (nullifications) with their sale and state, newest first',
  usage: `cobro refunds list [--account ID] [--status ${statusWords}] [--transaction ID] [--unresolved] [--limit N] [--page N] [--json]`,
  options: {
    account: { type: 'string', valueName: 'ID', description: "only this account's refunds" },
    status: {
      type: 'string',
      valueName: 'STATE',
      description: `only refunds in this state (${statusWords})`,
    },
    transaction: {
      type: 'string',
      valueName: 'ID',
      description: 'only the refunds of this sale (trx...)',
    },
    unresolved: {
      type: 'boolean',
      description:
        'only processor refunds left unresolved: complete, no longer asked (cobro refunds resolve)',
    },
    limit: {
      type: 'string',
      valueName: 'N',
      description: `how many per page (default 50, at most ${limits.cliListRowsMax})`,
    },
    page: { type: 'string', valueName: 'N', description: 'which page of --limit rows (default 1)' },
    json: { type: 'boolean', description: 'print the page as JSON ({refunds, total})' },
  },
  examples: [
    'cobro refunds list --status waiting_bank_details',
    'cobro refunds list --unresolved',
    'cobro refunds list --account acc4f6c0e3d2b1a09876 --limit 20 --page 2 --json',
  ],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const [{ listRefunds }, { nullificationStatuses }] = await Promise.all([
      import('../../modules/refunds/operator.ts'),
      import('../../modules/refunds/states.ts'),
    ]);
    const status = statusOption(args, nullificationStatuses);
    if (isOutput(status)) return status;
    const window = pageWindow(args);
    if (isOutput(window)) return window;
    const missing = await unknownAccount(requireCtx(ctx), stringOption(args, 'account'));
    if (missing !== null) return missing;
    const transaction = stringOption(args, 'transaction');
    const found = await listRefunds(requireCtx(ctx), {
      accountId: stringOption(args, 'account') ?? null,
      ...(status !== undefined ? { status } : {}),
      ...(transaction !== undefined ? { transactionId: transaction } : {}),
      ...(args.values.unresolved === true ? { unresolved: true as const } : {}),
      offset: window.offset,
      limit: window.limit,
    });
    if (args.values.json === true) return ok(JSON.stringify(found));
    return pageText('refunds', found.refunds.map(line), window, found.total);
  },
};

function describe(d: RefundDetail): string {
  return [
    `id:          ${d.id}`,
    `status:      ${d.status} (${d.type})${d.unresolved ? `, unresolved: check the processor, then cobro refunds resolve ${d.id} --outcome succeeded|failed` : ''}`,
    `account:     ${d.account_id}`,
    `sale:        ${d.transaction_id} (order ${d.order}), ${d.payment.gateway} ${d.payment.payment_type}`.trimEnd(),
    `amount:      ${d.amount} ${d.currency}: fee back ${d.fee_back}, from the sale ${d.from_pending}, from the wallet ${d.from_wallet}`,
    `subject:     ${d.subject}`,
    d.channel === 'processor'
      ? `processor:   ${d.refund_code ?? d.gateway_message ?? '-'} (${d.dispatch_attempts} attempt${d.dispatch_attempts === 1 ? '' : 's'})`
      : `bank payout: ${d.payout === null ? 'none yet (cobro refunds set-bank-details)' : `${d.payout.id} ${d.payout.status} to bank ${d.payout.bank} ...${d.payout.num_last4}, ${d.payout.name}${d.payout.reason_rejection === '' ? '' : ` (${d.payout.reason_rejection.trim()})`}`}`,
    `created:     ${d.created_at}`,
    `updated:     ${d.updated_at}`,
    'callbacks:',
    ...(d.callbacks.length === 0
      ? ['  none (no nullification URL: cobro accounts set-urls ID --nullification-url URL)']
      : d.callbacks.map(
          (c) =>
            `  ${c.id}  ${c.refund_status.padEnd(20)}  ${c.status.padEnd(10)}  ${c.attempts} attempt(s)  ${c.created_at}`,
        )),
  ].join('\n');
}

export const refundsShow: Command = {
  name: 'refunds show',
  summary:
    "Show one refund: its sale, where its money came from, the processor's answer and its callbacks",
  usage: 'cobro refunds show ID [--json]',
  options: { json: { type: 'boolean', description: 'print the refund as one JSON object' } },
  operands: [{ name: 'ID', description: 'the refund id (nul...), as `refunds list` prints it' }],
  examples: ['cobro refunds show nul4f1c0e9a7b2d4c6e8f0a'],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const { showRefund } = await import('../../modules/refunds/operator.ts');
    const id = args.positionals[0];
    if (id === undefined) return fail(`usage: ${this.usage}`, 2);
    const found = await showRefund(requireCtx(ctx), id);
    if (found === null) return fail(`no refund with id ${id}`);
    return ok(args.values.json === true ? JSON.stringify(found) : describe(found));
  },
};

export const refundsSetBankDetails: Command = {
  name: 'refunds set-bank-details',
  summary:
    "Record the payer's bank account of a bank-transfer refund waiting for it, and pay the refund out there",
  usage:
    'cobro refunds set-bank-details ID --sbif 0001 --type 1 --num 123 --rut 111111111 --name "Holder" [--json]',
  options: {
    ...bankAccountOptions,
    json: { type: 'boolean', description: 'print the refund and its payout as one JSON object' },
  },
  operands: [{ name: 'ID', description: 'the refund id (nul...) in waiting_bank_details' }],
  examples: [
    'cobro refunds set-bank-details nul4f1c0e9a7b2d4c6e8f0a --sbif 0012 --type 2 --num 12345678 --rut 111111111 --name "Juan Pérez"',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    const bank = bankAccountArgs(args);
    if (id === undefined || bank === undefined) return fail(`usage: ${this.usage}`, 2);
    const { recordBankDetails } = await import('../../modules/refunds/bank-details.ts');
    const result = await recordBankDetails(requireCtx(ctx), id, bank);
    if (!result.ok) return fail(result.error, 2);
    const refund = { account: result.refund.account_id, target: id };
    if (args.values.json === true)
      return ok(
        JSON.stringify({ id, status: result.refund.status, payout_id: result.payoutId }),
        refund,
      );
    const to = `bank ${bank.sbif}, account ${bank.num}, ${bank.holderName}`;
    return ok(
      `refund ${id} is ${result.refund.status}: payout ${result.payoutId} pays ${result.refund.amount_minor} ${result.refund.currency} to ${to}`,
      refund,
    );
  },
};
