// Changes to where money goes (decision 140): a marketplace client's bank account or the account's own bank
// account. Each is kept in destination_changes, logged, and called back to the account's notify_url through the
// outbox, all in the change's own transaction, so a change that commits is always on record and a record never
// names a change that rolled back.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { newId } from '../../platform/ids/ids.ts';
import { enqueueCallback } from '../../platform/notifications/enqueue.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import './destination-change-table.ts';

const destinationChangedEvent = 'destination.changed';

interface BankDestination {
  readonly sbif: string;
  readonly type: string;
  readonly num: string;
  readonly rut: string;
}

export interface DestinationChange {
  readonly accountId: string;
  readonly subject: 'account_bank' | 'marketplace_client_bank';
  readonly subjectId: string;
  readonly previous: BankDestination | null;
  readonly current: BankDestination;
  readonly source: 'api' | 'cli';
}

function sameDestination(a: BankDestination | null, b: BankDestination): boolean {
  return a !== null && a.sbif === b.sbif && a.type === b.type && a.num === b.num && a.rut === b.rut;
}

/** The callback shows the last four characters of an account number: enough to recognise it, not to reuse it. */
function masked(bank: BankDestination | null) {
  return bank === null
    ? null
    : { sbif: bank.sbif, type: bank.type, num_last4: bank.num.slice(-4), rut: bank.rut };
}

/** Records a change inside the transaction `tx` that makes it; an update that changes nothing records nothing. */
export async function recordDestinationChange(
  ctx: AppContext,
  tx: Tx,
  change: DestinationChange,
): Promise<string | null> {
  if (sameDestination(change.previous, change.current)) return null;
  const id = newId('dch', 20);
  // The account's time, as every callback's (docs/callbacks.md): a sandbox account that moved its clock sees the
  // change, its callback and its record at the time its other callbacks show. Production reads no offset.
  const at = await ctx.accountClock.now(change.accountId, tx);
  const account = await tx
    .selectFrom('accounts')
    .select('notify_url')
    .where('id', '=', change.accountId)
    .executeTakeFirst();
  let notificationId: string | null = null;
  if (account?.notify_url !== null && account?.notify_url !== undefined) {
    notificationId = await enqueueCallback(tx, {
      accountId: change.accountId,
      url: account.notify_url,
      eventType: destinationChangedEvent,
      at,
      payload: {
        id,
        type: destinationChangedEvent,
        subject: change.subject,
        subject_id: change.subjectId,
        source: change.source,
        changed_at: formatTimestamp(at, ctx.config.timeZone),
        previous: masked(change.previous),
        current: masked(change.current),
      },
    });
  }
  await tx
    .insertInto('destination_changes')
    .values({
      id,
      account_id: change.accountId,
      subject: change.subject,
      subject_id: change.subjectId,
      previous: change.previous === null ? null : JSON.stringify(change.previous),
      current: JSON.stringify(change.current),
      source: change.source,
      notification_id: notificationId,
      changed_at: at,
    })
    .execute();
  ctx.logger.warn(
    {
      accountId: change.accountId,
      subject: change.subject,
      subjectId: change.subjectId,
      changeId: id,
      source: change.source,
      previousNumLast4: change.previous?.num.slice(-4) ?? null,
      currentNumLast4: change.current.num.slice(-4),
      notificationId,
    },
    'destination of money changed',
  );
  return id;
}
