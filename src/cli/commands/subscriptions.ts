// `cobro subscriptions list|show|cancel`: the operator's view of subscriptions across accounts (reference §7),
// through the same services as the API and the dashboard.
import { limits } from '../../limits/index.ts';
import type {
  SubscriptionDetail,
  SubscriptionSummary,
} from '../../modules/subscriptions/summaries.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';
import { isOutput, pageText, pageWindow, statusOption } from '../paging.ts';
import { unknownAccount } from '../account-option.ts';

const statusWords = 'register|active|suspended|finish|delete|cancel';

function line(s: SubscriptionSummary): string {
  const amount = s.amount === null ? '-' : `${s.amount} CLP`;
  const last =
    s.last_payment === null
      ? 'no payment'
      : `last ${s.last_payment.status} ${s.last_payment.amount} CLP ${s.last_payment.at}`;
  return [
    s.id,
    s.status.padEnd(9),
    s.account_id,
    `${s.plan.name} (${s.plan.type}, ${amount})`,
    s.client.email,
    `next ${s.next_charge_at ?? '-'}`,
    last,
  ].join('  ');
}

export const subscriptionsList: Command = {
  name: 'subscriptions list',
  summary: 'List subscriptions with their plan, client, next charge and last payment, newest first',
  usage: `cobro subscriptions list [--account ID] [--status ${statusWords}] [--plan ID] [--limit N] [--page N] [--json]`,
  options: {
    account: { type: 'string', valueName: 'ID', description: "only this account's subscriptions" },
    status: {
      type: 'string',
      valueName: statusWords,
      description: 'only subscriptions in this state',
    },
    plan: {
      type: 'string',
      valueName: 'ID',
      description: 'only subscriptions to this plan (pl...)',
    },
    limit: {
      type: 'string',
      valueName: 'N',
      description: `how many per page (default 50, at most ${limits.cliListRowsMax})`,
    },
    page: { type: 'string', valueName: 'N', description: 'which page of --limit rows (default 1)' },
    json: { type: 'boolean', description: 'print the page as JSON ({subscriptions, total})' },
  },
  examples: [
    'cobro subscriptions list --status suspended',
    'cobro subscriptions list --account acc4f6c0e3d2b1a09876 --plan pl4293e97a87195bb9edcd --limit 20 --page 2 --json',
  ],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const [{ listSubscriptionSummaries }, { subscriptionStatuses }] = await Promise.all([
      import('../../modules/subscriptions/summaries.ts'),
      import('../../modules/subscriptions/states.ts'),
    ]);
    const status = statusOption(args, subscriptionStatuses);
    if (isOutput(status)) return status;
    const window = pageWindow(args);
    if (isOutput(window)) return window;
    const missing = await unknownAccount(requireCtx(ctx), stringOption(args, 'account'));
    if (missing !== null) return missing;
    const plan = stringOption(args, 'plan');
    const found = await listSubscriptionSummaries(requireCtx(ctx), {
      accountId: stringOption(args, 'account') ?? null,
      ...(status !== undefined ? { status } : {}),
      ...(plan !== undefined ? { planId: plan } : {}),
      offset: window.offset,
      limit: window.limit,
    });
    if (args.values.json === true) return ok(JSON.stringify(found));
    return pageText('subscriptions', found.subscriptions.map(line), window, found.total);
  },
};

function describe(d: SubscriptionDetail): string {
  const p = d.pricing;
  const price =
    p.type === 'consumption'
      ? 'consumption, charged on demand'
      : `${p.type} ${d.amount ?? p.amount} ${p.currency} every ${p.interval_count} ${p.interval}`;
  return [
    `id:          ${d.id}`,
    `status:      ${d.status}`,
    `account:     ${d.account_id}`,
    `plan:        ${d.plan.id} ${d.plan.name} (${price})`,
    `client:      ${d.client.id} ${d.client.name} <${d.client.email}>`,
    `start:       ${d.start}`,
    `end:         ${d.end ?? '-'}`,
    `next charge: ${d.next_charge_at ?? '-'}`,
    `card:        ${d.cards === null ? '-' : `${d.cards.card_type} ${d.cards.last_4_digits}`}`,
    'cycles:',
    ...(d.cycles.length === 0
      ? ['  none']
      : d.cycles.map(
          (c) =>
            `  #${c.number}  due ${c.due_at}  ${c.amount} CLP  ${c.status}  try ${c.try_number}${c.paid_at === null ? '' : `  paid ${c.paid_at}`}${c.next_try_at === null ? '' : `  next try ${c.next_try_at}`}`,
        )),
    'payments:',
    ...(d.transactions.length === 0
      ? ['  none']
      : d.transactions.map(
          (t) =>
            `  ${t.created_at}  ${t.status.padEnd(8)}  ${t.amount} CLP  transaction ${t.transaction}  order ${t.order}`,
        )),
    'status log:',
    ...d.logs.status.map(
      (l) => `  ${l.change_date}  ${l.initial_status ?? '(created)'} -> ${l.final_status}`,
    ),
  ].join('\n');
}

export const subscriptionsShow: Command = {
  name: 'subscriptions show',
  summary: 'Show one subscription with its billing cycles, payments and status log',
  usage: 'cobro subscriptions show ID [--json]',
  options: {
    json: {
      type: 'boolean',
      description:
        'print the subscription (GET /api/sususcription/{id} plus pricing and cycles) as JSON',
    },
  },
  operands: [{ name: 'ID', description: 'the subscription id (su...)' }],
  examples: [
    'cobro subscriptions show sucaab7865dceaff49d8b3',
    'cobro subscriptions show sucaab7865dceaff49d8b3 --json | jq .cycles',
  ],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail('usage: cobro subscriptions show ID', 2);
    const c = requireCtx(ctx);
    const { subscriptionAccount, subscriptionDetail } = await import(
      '../../modules/subscriptions/summaries.ts'
    );
    const accountId = await subscriptionAccount(c.db, id);
    const found = accountId === null ? null : await subscriptionDetail(c, accountId, id);
    if (found === null) return fail(`no subscription with id ${id}`);
    return ok(args.values.json === true ? JSON.stringify(found) : describe(found));
  },
};

export const subscriptionsCancel: Command = {
  name: 'subscriptions cancel',
  summary: 'Cancel a subscription: it becomes cancel and nothing is charged after it',
  usage: 'cobro subscriptions cancel ID [--json]',
  options: { json: { type: 'boolean', description: 'print {id, status} as JSON' } },
  operands: [{ name: 'ID', description: 'the subscription id (su...)' }],
  examples: ['cobro subscriptions cancel sucaab7865dceaff49d8b3'],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail('usage: cobro subscriptions cancel ID', 2);
    const c = requireCtx(ctx);
    const [{ subscriptionAccount }, { endSubscription }, { inTransaction }, { ApiError }] =
      await Promise.all([
        import('../../modules/subscriptions/summaries.ts'),
        import('../../modules/subscriptions/subscription-service.ts'),
        import('../../platform/db/unit-of-work.ts'),
        import('../../platform/errors/errors.ts'),
      ]);
    const accountId = await subscriptionAccount(c.db, id);
    if (accountId === null) return fail(`no subscription with id ${id}`);
    try {
      // The same service as DELETE /api/sususcription/{id}: the state table's move, the log, the pending cycles dropped.
      await inTransaction(c.db, (tx) => endSubscription({ ...c, db: tx }, accountId, id, 'cancel'));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'validation_failed')
        return fail(
          `subscription ${id} is ${error.message.replace(/^id:already /, '')} already: nothing to cancel`,
        );
      throw error;
    }
    return ok(
      args.values.json === true
        ? JSON.stringify({ id, status: 'cancel' })
        : `subscription ${id} is cancel: nothing is charged after it`,
      { account: accountId, target: id },
    );
  },
};
