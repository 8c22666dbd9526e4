// Beneficiaries are paid their parts on the event's date_payment (seed "Event"): a due-work handler claims events
// whose payment date has come on the account's clock and pays out every beneficiary's payable.
import type { AppContext } from '../../platform/context.ts';
import type { DueWorkScope } from '../../platform/work/due-work.ts';
import { journalKinds, ledgerCodes, SYSTEM_OWNER } from '../../platform/ledger/ledger.ts';
import { sql } from 'kysely';
import { eventLimits } from '../../limits/index.ts';
import './types.ts';
import { inTransaction } from '../../platform/db/unit-of-work.ts';

/** Pays one due event's beneficiaries; false when no event was due (or another worker holds it). */
async function payOneEvent(ctx: AppContext, accountId: string | undefined): Promise<boolean> {
  return inTransaction(ctx.db, async (tx) => {
    let q = tx
      .selectFrom('events')
      .select(['id', 'account_id', 'currency'])
      .where('payout_status', '=', 'scheduled')
      .where('date_payment_at', '<=', ctx.accountClock.nowSql(sql.ref('events.account_id')));
    if (accountId !== undefined) q = q.where('account_id', '=', accountId);
    const event = await q
      .orderBy('date_payment_at')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (event === undefined) return false;
    // Account time, like the sale's settlement before it: service time would date the payout before the sale in a
    // sandbox whose clock was moved to date_payment.
    const at = await ctx.accountClock.now(event.account_id, tx);
    if (event.currency !== null) {
      const people = await tx
        .selectFrom('event_beneficiaries')
        .select(['id', 'paid_minor'])
        .where('event_id', '=', event.id)
        .orderBy('position')
        .execute();
      for (const person of people) {
        const swept = await ctx.ledger.sweep(tx, {
          kind: journalKinds.eventBeneficiaryPayout,
          reference: event.id,
          at,
          from: {
            owner: person.id,
            code: ledgerCodes.beneficiaryPayable,
            currency: event.currency,
          },
          to: { owner: SYSTEM_OWNER, code: ledgerCodes.bankClearing, currency: event.currency },
        });
        if (swept === null) continue;
        await tx
          .updateTable('event_beneficiaries')
          .set({ status: 'paid', paid_minor: person.paid_minor + swept.movedMinor, paid_at: at })
          .where('id', '=', person.id)
          .execute();
      }
    }
    // Every settled part of the event has now left its payable (settlement writes a part there under the event's
    // lock, which this payout holds): a refund then takes it from the merchant, not the payable (decision 650).
    await tx
      .updateTable('event_sale_shares')
      .set({ paid_out_at: at })
      .where('paid_out_at', 'is', null)
      .where('transaction_id', 'in', (q) =>
        q
          .selectFrom('event_sales')
          .select('transaction_id')
          .where('event_id', '=', event.id)
          .where('settled_at', 'is not', null),
      )
      .execute();
    await tx
      .updateTable('events')
      .set({ payout_status: 'done' })
      .where('id', '=', event.id)
      .execute();
    return true;
  });
}

export async function runEventPayouts(ctx: AppContext, scope: DueWorkScope): Promise<number> {
  const batchMax = Math.min(scope.limit, eventLimits.payoutBatchMax);
  let processed = 0;
  while (processed < batchMax && (await payOneEvent(ctx, scope.accountId))) processed++;
  return processed;
}
