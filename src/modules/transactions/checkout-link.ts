// The hosted-checkout link's `valid` parameter: an HMAC-SHA256 of the transaction id under a service key, so a
// link cannot be forged for another transaction. The key is 32 random bytes made on first use and kept in
// cobro_meta sealed under COBRO_SECRET_KEY (docs/decisions/030-checkout-link-token.md).
import crypto from 'node:crypto';
import type { AppContext } from '../../platform/context.ts';
import { limits } from '../../limits/index.ts';
import type { Memo } from '../../platform/memo.ts';

const metaKey = 'checkout_link_key';

declare module '../../platform/context.ts' {
  interface AppContext {
    /**
     * The link key once read as committed, per app (decision 475). A KeyObject: createHmac takes one without
     * building it again from the bytes (a measurable share of a create).
     */
    readonly checkoutLinkKey: Memo<crypto.KeyObject>;
  }
}

/**
 * The key, made on first use. Cached once read as a row that was already there: a key this call inserts may be
 * inside a request's transaction that rolls back, so it is used for this answer only and cached by the next read.
 */
async function linkKey(ctx: AppContext): Promise<crypto.KeyObject> {
  const cached = ctx.checkoutLinkKey.peek();
  if (cached !== undefined) return cached;
  const stored = await ctx.db
    .selectFrom('cobro_meta')
    .select('value')
    .where('key', '=', metaKey)
    .executeTakeFirst();
  if (stored !== undefined) {
    const key = crypto.createSecretKey(Buffer.from(ctx.secrets.open(stored.value), 'hex'));
    ctx.checkoutLinkKey.keep(key);
    return key;
  }
  await ctx.db
    .insertInto('cobro_meta')
    .values({ key: metaKey, value: ctx.secrets.seal(crypto.randomBytes(32).toString('hex')) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await ctx.db
    .selectFrom('cobro_meta')
    .select('value')
    .where('key', '=', metaKey)
    .executeTakeFirstOrThrow();
  return crypto.createSecretKey(Buffer.from(ctx.secrets.open(row.value), 'hex'));
}

function tokenUnder(key: crypto.KeyObject, transactionId: string): string {
  return crypto
    .createHmac('sha256', key)
    .update(`checkout:${transactionId}`)
    .digest('hex')
    .slice(0, limits.checkoutTokenHexLength);
}

export async function checkoutToken(ctx: AppContext, transactionId: string): Promise<string> {
  return tokenUnder(await linkKey(ctx), transactionId);
}

export async function checkoutTokenValid(
  ctx: AppContext,
  transactionId: string,
  token: string,
): Promise<boolean> {
  if (!/^[0-9a-f]+$/.test(token) || token.length !== limits.checkoutTokenHexLength) return false;
  const expected = await checkoutToken(ctx, transactionId);
  return crypto.timingSafeEqual(Buffer.from(expected), Buffer.from(token));
}

export async function checkoutUrl(ctx: AppContext, transactionId: string): Promise<string> {
  // The cached key without linkKey's and checkoutToken's promises: every create answers a link (decision 320).
  const valid = tokenUnder(ctx.checkoutLinkKey.peek() ?? (await linkKey(ctx)), transactionId);
  return `${ctx.config.publicBaseUrl}/gateway/cobro?id=${encodeURIComponent(transactionId)}&valid=${valid}`;
}
