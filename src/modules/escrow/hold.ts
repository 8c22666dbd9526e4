// Escrow as an extension that holds settlement (src/modules/transactions/extension.ts, SettlementHold; decision
// 115): when a sale of an account flagged escrow settles, the merchant's part goes to its `escrow_held` ledger
// account instead of the wallet, and a hold row remembers how much of it is this sale's. A refund of a held sale
// takes from that part first (then the wallet); POST /api/escrow releases the rest (release.ts).
import { sql } from 'kysely';
import { ledgerCodes } from '../../platform/ledger/ledger.ts';
import type { SettlementHold } from '../transactions/extension.ts';
import './types.ts';

export const escrowHold: SettlementHold = {
  name: 'escrow',
  async hold(_ctx, tx, row, merchantMinor, at) {
    // Shares the account's row lock, so turning escrow off (flag.ts) never leaves a hold behind it.
    const account = await tx
      .selectFrom('accounts')
      .select('escrow')
      .where('id', '=', row.account_id)
      .forShare()
      .executeTakeFirstOrThrow();
    if (!account.escrow) return null;
    await tx
      .insertInto('escrow_holds')
      .values({
        transaction_id: row.id,
        account_id: row.account_id,
        currency: row.currency,
        settled_minor: merchantMinor,
        held_minor: merchantMinor,
        released_minor: null,
        held_at: at,
        released_at: null,
      })
      .execute();
    return ledgerCodes.escrowHeld;
  },
  async heldFunds(_ctx, tx, row) {
    const held = await tx
      .selectFrom('escrow_holds')
      .select('held_minor')
      .where('transaction_id', '=', row.id)
      .where('released_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (held === undefined) return null;
    return {
      key: { owner: row.account_id, code: ledgerCodes.escrowHeld, currency: row.currency },
      capMinor: BigInt(held.held_minor),
    };
  },
  async holdsAccounts(_ctx, tx, accountIds) {
    if (accountIds.length === 0) return new Set();
    const rows = await tx
      .selectFrom('accounts')
      .select(['id', 'escrow'])
      .where('id', 'in', accountIds)
      .orderBy('id')
      .forShare()
      .execute();
    return new Set(rows.filter((r) => r.escrow).map((r) => r.id));
  },
  async taken(_ctx, tx, row, amountMinor) {
    await tx
      .updateTable('escrow_holds')
      .set({ held_minor: sql`held_minor - ${amountMinor}` })
      .where('transaction_id', '=', row.id)
      .where('released_at', 'is', null)
      .execute();
  },
  async returned(_ctx, tx, row, amountMinor, unsettledMinor) {
    await tx
      .updateTable('escrow_holds')
      .set({
        held_minor: sql`held_minor + ${amountMinor}`,
        settled_minor: sql`settled_minor + ${unsettledMinor}`,
      })
      .where('transaction_id', '=', row.id)
      .where('released_at', 'is', null)
      .execute();
  },
};
