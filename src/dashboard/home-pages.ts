// The dashboard's home: what happened in the last 30 days at a glance, as two server-drawn SVG charts (sales per
// day, wallet balance at the end of each day) with the same figures in a table for those who would rather read.
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../platform/context.ts';
import '../modules/transactions/types.ts';
import { barChart, stepChart, type ChartOptions } from './charts.ts';
import { formatMoney } from './format.ts';
import { homeFigures } from './home.ts';
import { accountOf, renderPage } from './render.ts';
import { expiringKeysOf } from '../modules/accounts/key-repository.ts';
import { keyLimits } from '../limits/index.ts';
import { walletCurrencies } from './wallet.ts';

/** Whether the account ever created a sale, in any currency (one row read through the account's index). */
async function hasTransactions(ctx: AppContext, accountId: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('transactions')
    .select('id')
    .where('account_id', '=', accountId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The chart drawn wide and narrow (the stylesheet shows the one that fits the screen), each with its own ids. */
function bothSizes(draw: (o: ChartOptions) => string, o: ChartOptions): string {
  return draw(o) + draw({ ...o, id: `${o.id}-phone`, size: 'narrow' });
}

export function registerHomePage(app: FastifyInstance, ctx: AppContext): void {
  app.get('/', async (request, reply) => {
    const account = accountOf(request);
    const currencies = await walletCurrencies(ctx, account.id);
    const query = request.query as Record<string, unknown>;
    const currency =
      typeof query.currency === 'string' && currencies.includes(query.currency)
        ? query.currency
        : 'CLP';
    const figures = await homeFigures(ctx, account.id, currency);
    // Whether a captured `Sign` can be replayed on this account (docs/authentication.md, decision 440).
    const { strict_signing: strictSigning } = await ctx.db
      .selectFrom('accounts')
      .select('strict_signing')
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    // A key living out a rotation's grace stops working soon: said where everyone lands (decision 540).
    const now = ctx.clock.now();
    const until = new Date(now.getTime() + keyLimits.keyExpiryWarningMs);
    const expiringKeys = await expiringKeysOf(
      ctx.db,
      account.id,
      now,
      until,
      keyLimits.keysShownMax,
    );
    const format = (value: bigint) => formatMoney(value, currency);
    // Nothing to draw: a new account gets its next steps, a quiet month one line, never two empty charts.
    const anyTransaction = await hasTransactions(ctx, account.id);
    const quiet = figures.salesCount === 0 && figures.balances.every((b) => b.value === 0n);
    const first = figures.days[0] ?? '';
    const last = figures.days.at(-1) ?? '';
    return renderPage(ctx, request, reply, 200, 'home', {
      title: 'Inicio',
      section: 'home',
      currency,
      currencies,
      figures,
      strictSigning,
      expiringKeys,
      anyTransaction,
      quiet,
      baseUrl: ctx.config.publicBaseUrl,
      salesChart: bothSizes(barChart, {
        id: 'sales',
        title: `Ventas por día en ${currency}, del ${first} al ${last}`,
        points: figures.sales,
        format,
        description: `${figures.salesCount} ventas pagadas por ${format(figures.salesTotal)} en total.`,
      }),
      balanceChart: bothSizes(stepChart, {
        id: 'balance',
        title: `Saldo disponible de la billetera al cierre de cada día, del ${first} al ${last}`,
        points: figures.balances,
        format,
        description: `Saldo al cierre de hoy: ${format(figures.balances.at(-1)?.value ?? 0n)}.`,
      }),
    });
  });
}
