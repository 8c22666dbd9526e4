import type { DbOrTx } from '../../platform/db/types.ts';
import type { AppContext } from '../../platform/context.ts';
import { appMemo } from '../../platform/app-memo.ts';

export async function listBanks(db: DbOrTx, currency: string | null) {
  let q = db.selectFrom('banks').select(['code', 'name', 'currency']).orderBy('sort_order');
  if (currency !== null) q = q.where('currency', '=', currency);
  return q.execute();
}

/** The payment methods, in their order: reference data the migrations write, read once per app. */
export const paymentMethodCatalogue = appMemo(async (ctx: AppContext) =>
  ctx.db.selectFrom('payment_methods').select(['currency', 'payment', 'name', 'description', 'kind']).orderBy('sort_order').execute());

/** The currencies the payment methods name, from the same once-per-app read. */
export const knownCurrencies = appMemo(async (ctx: AppContext): Promise<ReadonlySet<string>> =>
  new Set((await paymentMethodCatalogue(ctx)).map((m) => m.currency)));

/** The bank catalogue's codes by currency: reference data the migrations write, read once per app. */
export const bankCodesByCurrency = appMemo(async (ctx: AppContext): Promise<ReadonlyMap<string, ReadonlySet<string>>> => {
  const rows = await ctx.db.selectFrom('banks').select(['currency', 'code']).execute();
  const byCurrency = new Map<string, Set<string>>();
  for (const row of rows) {
    let codes = byCurrency.get(row.currency);
    if (codes === undefined) byCurrency.set(row.currency, codes = new Set());
    codes.add(row.code);
  }
  return byCurrency;
});

export async function bankExists(db: DbOrTx, code: string): Promise<boolean> {
  const row = await db.selectFrom('banks').select('code').where('code', '=', code).executeTakeFirst();
  return row !== undefined;
}

export async function findPaymentMethod(ctx: AppContext, currency: string, payment: number) {
  return (await paymentMethodCatalogue(ctx)).find((m) => m.currency === currency && m.payment === payment);
}
