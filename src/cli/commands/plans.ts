// `cobro plans list|show|set-pricing`: subscription plans across accounts, and Cobro's pricing (decision 100) set
// from the command line for plans created the reference's way, without it (decision 105).
import { limits } from '../../limits/index.ts';
import type { PricingText } from '../../modules/subscriptions/plan-pricing.ts';
import type { planView } from '../../modules/subscriptions/plan-service.ts';
import { fail, ok, requireCtx, stringOption, type Command } from '../command.ts';
import { pageOption } from '../paging.ts';
import { unknownAccount } from '../account-option.ts';

type PlanView = ReturnType<typeof planView> & { readonly account_id?: string };

function price(p: PlanView): string {
  if (p.type === 'consumption') return 'consumption, charged on demand';
  const amount = p.type === 'fixed' ? `${p.amount} ${p.currency}` : `variable ${p.currency}`;
  const trial = p.trial_days > 0 ? `, ${p.trial_days} trial days` : '';
  return `${amount} every ${p.interval_count} ${p.interval}${trial}, ${p.retries_max} retries`;
}

function line(p: PlanView): string {
  return [
    p.id,
    ...(p.account_id === undefined ? [] : [p.account_id]),
    p.name,
    price(p),
    `${p.total_suscription_active}/${p.total_suscription} subscriptions active`,
  ].join('  ');
}

function describe(p: PlanView): string {
  return [
    `id:            ${p.id}`,
    `name:          ${p.name}`,
    `code:          ${p.code}`,
    `description:   ${p.description}`,
    `pricing:       ${price(p)}`,
    `subscriptions: ${p.total_suscription} (${p.total_suscription_active} active)`,
    `notify subscription: ${p.url_notify_suscription || '-'}`,
    `notify payment:      ${p.url_notify_payment || '-'}`,
  ].join('\n');
}

export const plansList: Command = {
  name: 'plans list',
  summary: 'List subscription plans with their pricing and subscription counts',
  usage: 'cobro plans list [--account ID] [--limit N] [--json]',
  options: {
    account: { type: 'string', valueName: 'ID', description: "only this account's plans" },
    limit: {
      type: 'string',
      valueName: 'N',
      description: `how many, oldest first (default 50, at most ${limits.cliListRowsMax})`,
    },
    json: {
      type: 'boolean',
      description: 'print a JSON array of plans (GET /api/suplan/{id} fields plus account_id)',
    },
  },
  examples: ['cobro plans list', 'cobro plans list --account acc4f6c0e3d2b1a09876 --json'],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const limit = pageOption(args, 'limit', 50, limits.cliListRowsMax);
    if (typeof limit !== 'number') return limit;
    const missing = await unknownAccount(requireCtx(ctx), stringOption(args, 'account'));
    if (missing !== null) return missing;
    const { listPlansForOperator } = await import('../../modules/subscriptions/summaries.ts');
    const plans = await listPlansForOperator(
      requireCtx(ctx),
      stringOption(args, 'account') ?? null,
      limit,
    );
    if (args.values.json === true) return ok(JSON.stringify(plans));
    return ok(plans.length === 0 ? 'no plans' : plans.map(line).join('\n'));
  },
};

export const plansShow: Command = {
  name: 'plans show',
  summary: 'Show one plan with its pricing and subscription counts',
  usage: 'cobro plans show ID [--json]',
  options: {
    json: {
      type: 'boolean',
      description: 'print the plan as GET /api/suplan/{id} shows it, plus account_id',
    },
  },
  operands: [{ name: 'ID', description: 'the plan id (pl...)' }],
  examples: ['cobro plans show pl4293e97a87195bb9edcd'],
  needsDb: true,
  readOnly: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail('usage: cobro plans show ID', 2);
    const { showPlanForOperator } = await import('../../modules/subscriptions/summaries.ts');
    const plan = await showPlanForOperator(requireCtx(ctx), id);
    if (plan === null) return fail(`no plan with id ${id}`);
    return ok(args.values.json === true ? JSON.stringify(plan) : describe(plan));
  },
};

/** CLI option -> API field of the pricing extension. */
const pricingOptions = {
  type: 'type',
  amount: 'amount',
  currency: 'currency',
  interval: 'interval',
  'interval-count': 'interval_count',
  'trial-days': 'trial_days',
  'retries-max': 'retries_max',
} as const satisfies Record<string, keyof PricingText>;
const optionOf = (field: string) =>
  `--${Object.entries(pricingOptions).find(([, f]) => f === field)?.[0] ?? field}`;
const hints: Readonly<Record<string, string>> = {
  'is empty': 'is required on a fixed plan',
  invalid: 'is invalid: CLP is the only currency',
};
const problemsText = (problems: Readonly<Record<string, string>>) =>
  Object.entries(problems)
    .map(([field, problem]) => `${optionOf(field)} ${hints[problem] ?? problem}`)
    .join('\n');

export const plansSetPricing: Command = {
  name: 'plans set-pricing',
  summary:
    "Set a plan's pricing (amount, interval, type, trial, retries) as POST /api/suplan would",
  usage:
    'cobro plans set-pricing ID [--type fixed|variable|consumption] [--amount CLP] [--currency CLP] [--interval day|week|month|year] [--interval-count N] [--trial-days N] [--retries-max N] [--json]',
  options: {
    type: {
      type: 'string',
      valueName: 'fixed|variable|consumption',
      description: 'how cycles are charged; variable and consumption plans have no amount',
    },
    amount: {
      type: 'string',
      valueName: 'CLP',
      description: 'whole CLP per cycle (fixed plans only)',
    },
    currency: {
      type: 'string',
      valueName: 'CLP',
      description: 'the currency; CLP is the only one',
    },
    interval: {
      type: 'string',
      valueName: 'day|week|month|year',
      description: 'the unit of a billing cycle',
    },
    'interval-count': { type: 'string', valueName: 'N', description: 'units per cycle (1 to 366)' },
    'trial-days': {
      type: 'string',
      valueName: 'N',
      description: 'days before the first cycle (0 to 3660)',
    },
    'retries-max': {
      type: 'string',
      valueName: 'N',
      description: 'retries of a declined cycle before suspension (0 to 10)',
    },
    json: { type: 'boolean', description: 'print the plan as GET /api/suplan/{id} shows it' },
  },
  operands: [{ name: 'ID', description: 'the plan id (pl...)' }],
  examples: [
    'cobro plans set-pricing pl4293e97a87195bb9edcd --type fixed --amount 9990 --currency CLP --interval month --interval-count 1 --trial-days 0 --retries-max 3',
    'cobro plans set-pricing pl4293e97a87195bb9edcd --type variable --interval week --interval-count 2',
  ],
  needsDb: true,
  async run(ctx, args) {
    const id = args.positionals[0];
    if (id === undefined) return fail(`usage: ${this.usage}`, 2);
    const text: Record<string, string> = {};
    for (const [option, field] of Object.entries(pricingOptions)) {
      const value = stringOption(args, option);
      if (value !== undefined) text[field] = value;
    }
    if (Object.keys(text).length === 0)
      return fail(
        'nothing to set: give at least one of --type, --amount, --currency, --interval, --interval-count, --trial-days, --retries-max',
        2,
      );
    const { parsePricing, setPlanPricing } = await import(
      '../../modules/subscriptions/plan-pricing.ts'
    );
    const parsed = parsePricing(text);
    if (!parsed.ok) return fail(problemsText(parsed.problems), 2);
    const result = await setPlanPricing(requireCtx(ctx), id, parsed.change);
    if (!result.ok) {
      if (result.reason === 'not_found') return fail(`no plan with id ${id}`);
      if (result.reason === 'in_use')
        return fail(
          `plan ${id} ${result.problems.plan}: its pricing stays as it is (decision 105)`,
        );
      return fail(problemsText(result.problems), 2);
    }
    return ok(
      args.values.json === true ? JSON.stringify(result.plan) : `plan ${id}: ${price(result.plan)}`,
      { account: result.accountId, target: id },
    );
  },
};
