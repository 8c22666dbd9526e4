// `cobro subscriptions removals|retry-removal` (decision 984): the Oneclick inscriptions Cobro deletes at Transbank
// once no subscription can charge them (decision 990), and a given-up one sent once more.
import { limits, subscriptionLimits } from '../../limits/index.ts';
import type { CardRemovalSummary } from '../../modules/subscriptions/card-removals-operator.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';
import { isOutput, pageText, pageWindow, statusOption } from '../paging.ts';
import { unknownAccount } from '../account-option.ts';

const stateWords = 'due|done|kept|given_up';

function line(r: CardRemovalSummary): string {
  return [
    r.card_id,
    r.state.padEnd(8),
    r.account_id,
    `subscription ${r.subscription_id}`,
    `${r.card.brand} ${r.card.last_4_digits}`,
    `${r.tries} tr${r.tries === 1 ? 'y' : 'ies'} (${r.refusals} refused, ${r.busy} busy)`,
    r.state === 'due' ? `next ${r.due_at ?? 'now'}` : `since ${r.updated_at}`,
    ...(r.last_error === null ? [] : [`last error: ${r.last_error}`]),
  ].join('  ');
}

export const subscriptionsRemovals: Command = {
  name: 'subscriptions removals',
  summary:
    'List the Oneclick inscriptions deleted at Transbank once no subscription charges them, and those given up',
  usage: `cobro subscriptions removals [--account ID] [--status ${stateWords}] [--limit N] [--page N] [--json]`,
  options: {
    account: { type: 'string', valueName: 'ID', description: "only this account's removals" },
    status: {
      type: 'string',
      valueName: stateWords,
      description: `only removals in this state (given_up: left at Transbank after ${subscriptionLimits.cardRemovalTriesMax} refused deletes or ${subscriptionLimits.cardRemovalBusyTriesMax} busy ones)`,
    },
    limit: {
      type: 'string',
      valueName: 'N',
      description: `how many per page (default 50, at most ${limits.cliListRowsMax})`,
    },
    page: { type: 'string', valueName: 'N', description: 'which page of --limit rows (default 1)' },
    json: { type: 'boolean', description: 'print the page as JSON ({removals, total})' },
  },
  examples: [
    'cobro subscriptions removals --status given_up',
    'cobro subscriptions removals --account acc4f6c0e3d2b1a09876 --status due --json',
  ],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const { cardRemovalStates, listCardRemovals } = await import(
      '../../modules/subscriptions/card-removals-operator.ts'
    );
    const state = statusOption(args, cardRemovalStates);
    if (isOutput(state)) return state;
    const window = pageWindow(args);
    if (isOutput(window)) return window;
    const missing = await unknownAccount(requireCtx(ctx), stringOption(args, 'account'));
    if (missing !== null) return missing;
    const found = await listCardRemovals(requireCtx(ctx), {
      accountId: stringOption(args, 'account') ?? null,
      ...(state !== undefined ? { state } : {}),
      offset: window.offset,
      limit: window.limit,
    });
    if (args.values.json === true) return ok(JSON.stringify(found));
    return pageText('card removals', found.removals.map(line), window, found.total);
  },
};

export const subscriptionsRetryRemoval: Command = {
  name: 'subscriptions retry-removal',
  summary:
    'Make a given-up Oneclick card removal due again: the due work deletes the inscription at Transbank once more',
  usage: 'cobro subscriptions retry-removal ID [--json]',
  options: { json: { type: 'boolean', description: 'print {card_id, state} as JSON' } },
  operands: [
    {
      name: 'ID',
      description:
        'the card id (sure...) of a given_up removal, as `subscriptions removals` prints it',
    },
  ],
  examples: ['cobro subscriptions retry-removal sure3f1c0e9a7b2d4c6e8f0'],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail(`usage: ${this.usage}`, 2);
    const c = requireCtx(ctx);
    const { retryCardRemoval } = await import(
      '../../modules/subscriptions/card-removals-operator.ts'
    );
    const result = await retryCardRemoval(c.db, id, c.clock.now());
    if (!result.ok) return fail(result.error);
    const audit = { account: result.accountId, target: id };
    if (args.values.json === true) return ok(JSON.stringify({ card_id: id, state: 'due' }), audit);
    return ok(
      `the removal of card ${id} is due: the due work sends Transbank's delete once more (a failure gives it up again)`,
      audit,
    );
  },
};
