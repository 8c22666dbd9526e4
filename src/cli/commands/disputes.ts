// `cobro disputes open|resolve|import`: the operator records what the acquirer reports (docs/disputes.md). Each
// change commits with its audit row (actor `operator`).
import {
  amountOptionMinor,
  amountOptionText,
  fail,
  ok,
  requireCtx,
  stringOption,
  type Command,
  type Progress,
} from '../command.ts';
import { readFileBounded } from '../read-bounded.ts';
import { keyOption } from '../key-option.ts';
import { isOutput } from '../paging.ts';
import { disputeLimits } from '../../limits/index.ts';

const idOperand = [{ name: 'ID', description: 'the dispute (dsp...)' }];

const keyRequiredText =
  "disputes open needs --key KEY (the acquirer's case number): run again with the same key, the dispute is found and not opened twice";

export const disputesOpen: Command = {
  name: 'disputes open',
  summary: "Record a chargeback the acquirer reports: holds the amount from the merchant's wallet",
  usage: 'cobro disputes open --transaction ID --amount N --reason TEXT --key KEY [--json]',
  options: {
    transaction: { type: 'string', valueName: 'ID', description: 'the disputed sale (trx...)' },
    amount: { type: 'string', valueName: 'MINOR', description: 'whole minor units disputed' },
    reason: { type: 'string', valueName: 'TEXT', description: "the acquirer's reason" },
    key: {
      type: 'string',
      valueName: 'KEY',
      description:
        "names this chargeback (the acquirer's case number; required): run again with it, the dispute is found, not opened twice",
    },
    json: { type: 'boolean', description: 'print the dispute as JSON' },
  },
  examples: [
    'cobro disputes open --transaction trx0a1b2c3d4e5f6a7b8c --amount 5000 --reason fraud --key CB-2026-0114',
  ],
  needsDb: true,
  audit: 'own',
  async run(ctxOrNull, args) {
    const ctx = requireCtx(ctxOrNull);
    const transactionId = stringOption(args, 'transaction');
    const amountText = stringOption(args, 'amount');
    const reason = stringOption(args, 'reason')?.trim();
    if (transactionId === undefined || amountText === undefined || !reason)
      return fail(`usage: ${this.usage}`, 2);
    const amountMinor = amountOptionMinor(amountText);
    if (amountMinor === null) return fail(amountOptionText, 2);
    // The table's bound, checked here so the operator reads it and not the database's refusal (decision 885).
    if ([...reason].length > disputeLimits.reasonLengthMax)
      return fail(`--reason must have 1 to ${disputeLimits.reasonLengthMax} characters`, 2);
    // Required (decision 1190): without a key the same opening run twice held the sale's money twice.
    const key = keyOption(args, disputeLimits.operatorKeyLengthMax);
    if (isOutput(key)) return key;
    if (key === undefined) return fail(keyRequiredText, 2);
    const [{ operatorOpen }, { disputeView }] = await Promise.all([
      import('../../modules/disputes/operator.ts'),
      import('../../modules/disputes/views.ts'),
    ]);
    const done = await operatorOpen(ctx, {
      accountId: null,
      transactionId,
      amountMinor,
      reason,
      operatorKey: `open:${key}`,
    });
    if (!done.ok) return fail(`${done.failure.type}: ${done.failure.message_error}`);
    const view = disputeView(done.dispute, ctx.config.timeZone);
    // The same key again (decision 710): the dispute it opened, if it is this chargeback; nothing is held twice.
    if (
      done.already === true &&
      (done.dispute.transaction_id !== transactionId ||
        BigInt(done.dispute.amount_minor) !== amountMinor)
    )
      return fail(
        `--key ${key} opened ${view.id} on ${view.transaction_id} for ${view.amount}: use another key`,
      );
    if (args.values.json === true) return ok(JSON.stringify(view));
    if (done.already === true)
      return ok(`already opened ${view.id} on ${view.transaction_id} (--key ${key})`);
    return ok(
      `opened ${view.id} on ${view.transaction_id}: ${view.amount} ${view.currency} held (${view.from_wallet} from the wallet, ${view.debt} as debt), respond by ${view.respond_by}`,
    );
  },
};

export const disputesResolve: Command = {
  name: 'disputes resolve',
  summary:
    "Record the acquirer's decision on a dispute: won gives the money back, lost sends it on",
  usage: 'cobro disputes resolve ID --outcome won|lost [--json]',
  operands: idOperand,
  options: {
    outcome: { type: 'string', valueName: 'won|lost', description: "the acquirer's decision" },
    json: { type: 'boolean', description: 'print the dispute as JSON' },
  },
  examples: ['cobro disputes resolve dsp0a1b2c3d4e5f6a7b8c9d --outcome won'],
  needsDb: true,
  audit: 'own',
  async run(ctxOrNull, args) {
    const ctx = requireCtx(ctxOrNull);
    const id = args.positionals[0];
    const outcome = stringOption(args, 'outcome');
    if (id === undefined || (outcome !== 'won' && outcome !== 'lost'))
      return fail(`usage: ${this.usage}`, 2);
    const [{ operatorResolve }, { disputeView }] = await Promise.all([
      import('../../modules/disputes/operator.ts'),
      import('../../modules/disputes/views.ts'),
    ]);
    const done = await operatorResolve(ctx, id, outcome);
    if (!done.ok) return fail(`${done.failure.type}: ${done.failure.message_error}`);
    const view = disputeView(done.dispute, ctx.config.timeZone);
    return ok(args.values.json === true ? JSON.stringify(view) : `${view.id} ${view.status}`);
  },
};

export const disputesImport: Command = {
  name: 'disputes import',
  summary:
    "Record a CSV of the acquirer's report: opens (transaction_id,amount,reason), resolutions (dispute_id,outcome)",
  usage: 'cobro disputes import FILE.csv',
  operands: [{ name: 'FILE', description: 'the CSV file, header first' }],
  options: {},
  examples: ['cobro disputes import contracargos-2026-03.csv'],
  needsDb: true,
  readsFile: true,
  audit: 'own',
  async run(ctxOrNull, args, progress) {
    const ctx = requireCtx(ctxOrNull);
    const file = args.positionals[0];
    if (file === undefined) return fail(`usage: ${this.usage}`, 2);
    const read = await readFileBounded(file, disputeLimits.importFileBytesMax);
    if (!read.ok) return fail(read.error, 2);
    const { importDisputes } = await import('../../modules/disputes/operator.ts');
    // Each line as it commits (decision 710): a run cut short has said how far it got.
    let early = '';
    const print: Progress =
      progress ??
      ((text) => {
        early += text;
      });
    const results = await importDisputes(ctx, read.text, (r) =>
      print(`line ${r.line}: ${r.status === 'refused' ? 'refused: ' : ''}${r.text}\n`),
    );
    if (typeof results === 'string') return fail(results, 2);
    const count = (status: string) => results.filter((r) => r.status === status).length;
    const [refused, already] = [count('refused'), count('already')];
    // An opening found again reads `already opened dsp...`, a resolution `already won|lost dsp...` (decision 1145).
    const opened = results.filter((r) => r.text.startsWith('already opened ')).length;
    const alreadyText =
      (opened > 0 ? `${opened} already opened, ` : '') +
      (already > opened ? `${already - opened} already resolved, ` : '');
    return {
      exitCode: refused === 0 ? 0 : 1,
      stdout: `${early}${count('recorded')} recorded, ${alreadyText}${refused} refused\n`,
      stderr: '',
    };
  },
};
