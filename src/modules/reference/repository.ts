import type { DbOrTx } from '../../platform/db/types.ts';

export async function listBanks(db: DbOrTx, currency: string | null) {
  let q = db.selectFrom('banks').select(['code', 'name', 'currency']).orderBy('sort_order');
  if (currency !== null) q = q.where('currency', '=', currency);
  return q.execute();
}

export async function listPaymentMethods(db: DbOrTx, currency: string | null) {
  let q = db.selectFrom('payment_methods').select(['currency', 'payment', 'name', 'description']).orderBy('sort_order');
  if (currency !== null) q = q.where('currency', '=', currency);
  return q.execute();
}

export async function knownCurrencies(db: DbOrTx): Promise<ReadonlySet<string>> {
  const rows = await db.selectFrom('payment_methods').select('currency').distinct().execute();
  return new Set(rows.map((r) => r.currency));
}

export async function bankExists(db: DbOrTx, code: string): Promise<boolean> {
  const row = await db.selectFrom('banks').select('code').where('code', '=', code).executeTakeFirst();
  return row !== undefined;
}

export async function findPaymentMethod(db: DbOrTx, currency: string, payment: number) {
  return db.selectFrom('payment_methods').selectAll().where('currency', '=', currency).where('payment', '=', payment).executeTakeFirst();
}
