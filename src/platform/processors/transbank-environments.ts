// Which accounts take card payments on Transbank's integration (test) environment (decision 984, from 996's LOW):
// production mode allows it, the documented way to try a deployment, but its sales are "paid" with Transbank's public
// test cards and no money moves. A production start names these accounts and `cobro accounts show` says it.
import { sql } from 'kysely';
import type { DbOrTx } from '../db/types.ts';
import { limits } from '../../limits/index.ts';
import { environmentUrl, shownEnvironment, webpayEnvironments } from './environment-url.ts';

export type TransbankProduct = 'webpay_plus' | 'oneclick_mall';

export interface TransbankKeysSummary {
  readonly product: TransbankProduct;
  readonly commerceCode: string;
  /** As stored, but for a URL's user and password, shown as `***` (decision 982). */
  readonly environment: string;
  /** On Transbank's integration host: test cards pay, no money moves. */
  readonly integration: boolean;
}

/** `integration`, or a URL naming the integration host (trailing slashes and letter case aside). */
function isIntegration(environment: string): boolean {
  if (environment === 'integration') return true;
  const url = environmentUrl(environment);
  return url !== null && url.toLowerCase() === webpayEnvironments.integration;
}

/** The account's Transbank keys (never the API key): Webpay Plus, then Oneclick Mall, those it has. */
export async function transbankKeysOf(
  db: DbOrTx,
  accountId: string,
): Promise<TransbankKeysSummary[]> {
  const [webpay, oneclick] = await Promise.all([
    db
      .selectFrom('account_processors')
      .select(['commerce_code', 'environment'])
      .where('account_id', '=', accountId)
      .executeTakeFirst(),
    db
      .selectFrom('account_oneclick')
      .select(['commerce_code', 'environment'])
      .where('account_id', '=', accountId)
      .executeTakeFirst(),
  ]);
  const found: TransbankKeysSummary[] = [];
  for (const [product, row] of [
    ['webpay_plus', webpay],
    ['oneclick_mall', oneclick],
  ] as const)
    if (row !== undefined)
      found.push({
        product,
        commerceCode: row.commerce_code,
        environment: shownEnvironment(row.environment),
        integration: isIntegration(row.environment),
      });
  return found;
}

export interface IntegrationAccount {
  readonly accountId: string;
  readonly name: string;
  readonly products: readonly TransbankProduct[];
}

/**
 * The accounts whose Webpay Plus or Oneclick Mall keys name the integration host, at most startNoteAccountsMax of
 * them (the oldest first), and how many there are in all.
 */
export async function integrationAccounts(
  db: DbOrTx,
): Promise<{ accounts: IntegrationAccount[]; total: number }> {
  // The environment as stored: `integration`, or the host's URL (environmentUrl keeps it but for trailing slashes).
  const host = webpayEnvironments.integration;
  const onIntegration = sql<boolean>`(environment = 'integration' OR lower(rtrim(environment, '/')) = ${host})`;
  const rows = await db
    .selectFrom((eb) =>
      eb
        .selectFrom('account_processors')
        .select(['account_id', sql<TransbankProduct>`'webpay_plus'`.as('product')])
        .where(onIntegration)
        .unionAll(
          eb
            .selectFrom('account_oneclick')
            .select(['account_id', sql<TransbankProduct>`'oneclick_mall'`.as('product')])
            .where(onIntegration),
        )
        .as('k'),
    )
    .innerJoin('accounts as a', 'a.id', 'k.account_id')
    .select([
      'a.id',
      'a.name',
      sql<boolean>`bool_or(k.product = 'webpay_plus')`.as('webpay'),
      sql<boolean>`bool_or(k.product = 'oneclick_mall')`.as('oneclick'),
      sql<string>`count(*) over ()`.as('total'),
    ])
    .groupBy(['a.id', 'a.name', 'a.created_at'])
    .orderBy('a.created_at')
    .orderBy('a.id')
    .limit(limits.startNoteAccountsMax)
    .execute();
  return {
    total: Number(rows[0]?.total ?? 0),
    accounts: rows.map((r) => ({
      accountId: r.id,
      name: r.name,
      products: [
        ...(r.webpay ? (['webpay_plus'] as const) : []),
        ...(r.oneclick ? (['oneclick_mall'] as const) : []),
      ],
    })),
  };
}
