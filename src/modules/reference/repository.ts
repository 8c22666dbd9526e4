import type { DbOrTx, PaymentMethodTable } from '../../platform/db/types.ts';
import type { AppContext } from '../../platform/context.ts';
import { Memo } from '../../platform/memo.ts';

export type PaymentMethodRow = Pick<
  PaymentMethodTable,
  'currency' | 'payment' | 'name' | 'description' | 'kind'
>;

/** An answer of GET /api/banks or /api/paymentmethods as sent: its JSON body and a strong ETag (routes.ts). */
export interface ReferenceAnswer {
  readonly body: string;
  readonly etag: string;
}

export interface ReferenceAnswers {
  readonly currencies: ReadonlySet<string>;
  /** By currency filter ('' for none): one entry per known currency plus one, so the map stays bounded. */
  readonly banks: ReadonlyMap<string, ReferenceAnswer>;
  readonly methods: ReadonlyMap<string, ReferenceAnswer>;
}

/**
 * The reference data an app reads once: migrations write it and nothing changes it at run time. Made per app by the
 * composition root (src/runtime.ts) as ctx.referenceData (decision 475).
 */
export interface ReferenceData {
  readonly paymentMethods: Memo<readonly PaymentMethodRow[]>;
  readonly currencies: Memo<ReadonlySet<string>>;
  readonly bankCodes: Memo<ReadonlyMap<string, ReadonlySet<string>>>;
  /** The sandbox's answers of the two public routes, built once (routes.ts). */
  readonly answers: Memo<ReferenceAnswers>;
}

declare module '../../platform/context.ts' {
  interface AppContext {
    readonly referenceData: ReferenceData;
  }
}

export function referenceData(): ReferenceData {
  return {
    paymentMethods: new Memo(),
    currencies: new Memo(),
    bankCodes: new Memo(),
    answers: new Memo(),
  };
}

export async function listBanks(db: DbOrTx, currency: string | null) {
  let q = db.selectFrom('banks').select(['code', 'name', 'currency']).orderBy('sort_order');
  if (currency !== null) q = q.where('currency', '=', currency);
  return q.execute();
}

/** The payment methods, in their order: reference data the migrations write, read once per app. */
export function paymentMethodCatalogue(ctx: AppContext): Promise<readonly PaymentMethodRow[]> {
  return ctx.referenceData.paymentMethods.get(() =>
    ctx.db
      .selectFrom('payment_methods')
      .select(['currency', 'payment', 'name', 'description', 'kind'])
      .orderBy('sort_order')
      .execute(),
  );
}

/** The currencies the payment methods name, from the same once-per-app read. */
export function knownCurrencies(ctx: AppContext): Promise<ReadonlySet<string>> {
  return ctx.referenceData.currencies.get(
    async () => new Set((await paymentMethodCatalogue(ctx)).map((m) => m.currency)),
  );
}

/** The bank catalogue's codes by currency: reference data the migrations write, read once per app. */
export function bankCodesByCurrency(
  ctx: AppContext,
): Promise<ReadonlyMap<string, ReadonlySet<string>>> {
  return ctx.referenceData.bankCodes.get(async () => {
    const rows = await ctx.db.selectFrom('banks').select(['currency', 'code']).execute();
    const byCurrency = new Map<string, Set<string>>();
    for (const row of rows) {
      let codes = byCurrency.get(row.currency);
      if (codes === undefined) byCurrency.set(row.currency, (codes = new Set()));
      codes.add(row.code);
    }
    return byCurrency;
  });
}

export async function bankExists(db: DbOrTx, code: string): Promise<boolean> {
  const row = await db
    .selectFrom('banks')
    .select('code')
    .where('code', '=', code)
    .executeTakeFirst();
  return row !== undefined;
}

export async function findPaymentMethod(ctx: AppContext, currency: string, payment: number) {
  return (await paymentMethodCatalogue(ctx)).find(
    (m) => m.currency === currency && m.payment === payment,
  );
}
