// Sandbox convenience: the first start on an empty database creates a demo account and prints its tokens once.
import type { AppContext } from '../../platform/context.ts';
import { createAccount, type AccountView } from './service.ts';

export async function ensureDemoAccount(ctx: AppContext): Promise<AccountView | null> {
  if (ctx.config.mode !== 'sandbox') return null;
  const claimed = await ctx.db
    .insertInto('cobro_meta')
    .values({ key: 'demo_account_created', value: ctx.clock.now().toISOString() })
    .onConflict((oc) => oc.column('key').doNothing())
    .returning('key')
    .executeTakeFirst();
  if (claimed === undefined) return null;
  const existing = await ctx.db.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
  if (existing !== undefined) return null;
  const created = await createAccount(ctx, 'Demo merchant');
  return created.ok ? created.value : null;
}
