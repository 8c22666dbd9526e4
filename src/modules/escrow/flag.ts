// The operator's escrow flag (`cobro accounts set-escrow ID [--off]`, decision 115). Sales settling after it is on
// are held; turning it off is refused while any held sale is not released, so a held sale can always be released.
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import type { AccountResult } from '../accounts/service.ts';
import './types.ts';

export interface EscrowFlag {
  readonly escrow: boolean;
  /** Sales held and not released yet, money left in them or not. */
  readonly heldCount: number;
}

export async function setEscrow(
  ctx: AppContext,
  accountId: string,
  escrow: boolean,
): Promise<AccountResult<EscrowFlag>> {
  return inTransaction(ctx.db, async (tx) => {
    // The account's row lock orders this against a settlement deciding whether to hold (hold.ts).
    const account = await tx
      .selectFrom('accounts')
      .select('id')
      .where('id', '=', accountId)
      .forUpdate()
      .executeTakeFirst();
    if (account === undefined) return { ok: false, error: `no account with id ${accountId}` };
    const { count } = await tx
      .selectFrom('escrow_holds')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('account_id', '=', accountId)
      // Not only those with money left: a refund still at the processor may have taken all of it, and a refusal
      // gives it back to the hold, which only a release empties (decision 1030).
      .where('released_at', 'is', null)
      .executeTakeFirstOrThrow();
    const heldCount = Number(count);
    if (!escrow && heldCount > 0) {
      return {
        ok: false,
        error: `${accountId} still holds ${heldCount} escrow sale(s); the merchant releases them with POST /api/escrow first`,
      };
    }
    await tx
      .updateTable('accounts')
      .set({ escrow, updated_at: ctx.clock.now() })
      .where('id', '=', accountId)
      .execute();
    ctx.logger.info({ accountId, escrow }, 'escrow flag changed');
    return { ok: true, value: { escrow, heldCount } };
  });
}
