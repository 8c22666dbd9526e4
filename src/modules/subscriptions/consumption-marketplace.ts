// `marketplace` on POST /api/sutransaction (reference §8.4, decision 106): the charge becomes a marketplace payment
// through the marketplace's own payment extension (decisions 045, 046), found in ctx.paymentExtensions as the mall
// finds it, so its net divides among the membership's clients at settlement exactly as POST /api/transaction's does.
import type { AppContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';
import { validationError, type RuleFailure } from '../../platform/errors/errors.ts';
import { findMembership } from '../marketplace/repository.ts';
import { extensionColumns, type ExtensionColumns } from '../transactions/extension.ts';

export type ChargeMarketplace =
  | {
      readonly ok: true;
      readonly token: string;
      attach(
        ctx: AppContext,
      ): Promise<{ ok: true; columns: ExtensionColumns } | { ok: false; failure: RuleFailure }>;
    }
  | { readonly ok: false; readonly token: string; readonly failure: RuleFailure };

/**
 * Checks the membership named by id (`ma...`, as the reference's sample sends it) or by token (as a transaction
 * names it). Unknown or another merchant's: the same 400 `marketplace: invalid` a marketplace transaction answers;
 * suspended: its `marketplace_suspended` refusal, for the caller to answer once the request is otherwise valid.
 */
export async function prepareChargeMarketplace(
  ctx: AppContext,
  accountId: string,
  value: string,
  at: Date,
): Promise<ChargeMarketplace> {
  const extension = ctx.paymentExtensions.find((e) => e.field === 'marketplace');
  const trimmed = value.trim();
  if (extension === undefined || trimmed === '') throw validationError({ marketplace: 'invalid' });
  const token = (await findMembership(ctx.db, accountId, trimmed))?.token ?? trimmed;
  const prepared = await extension.prepare(ctx, { accountId, value: token, currency: 'CLP', at });
  if (!prepared.ok) {
    if ('errors' in prepared) throw validationError(prepared.errors);
    return { ok: false, token, failure: prepared.failure };
  }
  return {
    ok: true,
    token,
    attach: async (c) => {
      const attached = await inTransaction(c.db, (tx) => prepared.attach(tx));
      return attached.ok
        ? { ok: true, columns: extensionColumns(extension, attached.ref) }
        : attached;
    },
  };
}
