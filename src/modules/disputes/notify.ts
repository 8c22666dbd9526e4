// The dispute callbacks (decision 530): `dispute.opened`, `dispute.won` and `dispute.lost` (a dispute the merchant
// accepted is lost too: its payload says `accepted`) to the account's notify_url, through the outbox in the
// change's own transaction, signed and retried like every callback. No notify_url, no callback.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { enqueueCallback } from '../../platform/notifications/enqueue.ts';
import type { DisputeRow } from './repository.ts';
import { disputeView } from './views.ts';

const disputeEvents = ['dispute.opened', 'dispute.won', 'dispute.lost'] as const;
type DisputeEvent = (typeof disputeEvents)[number];

function eventOf(row: DisputeRow): DisputeEvent {
  switch (row.status) {
    case 'needs_response':
    case 'under_review':
      return 'dispute.opened';
    case 'won':
      return 'dispute.won';
    case 'lost':
    case 'accepted':
      return 'dispute.lost';
    default: {
      const never: never = row.status;
      throw new Error(`unknown dispute status ${String(never)}`);
    }
  }
}

export async function notifyDispute(ctx: AppContext, tx: Tx, row: DisputeRow): Promise<void> {
  const account = await tx
    .selectFrom('accounts')
    .select('notify_url')
    .where('id', '=', row.account_id)
    .executeTakeFirst();
  const url = account?.notify_url ?? null;
  if (url === null) return;
  const type = eventOf(row);
  await enqueueCallback(tx, {
    accountId: row.account_id,
    url,
    eventType: type,
    payload: { type, dispute: disputeView(row, ctx.config.timeZone) },
    // The account's time (docs/callbacks.md: one clock for all of a callback's times); due at once, as the claim
    // compares due times with the account's clock too.
    at: await ctx.accountClock.now(row.account_id, tx),
  });
}
