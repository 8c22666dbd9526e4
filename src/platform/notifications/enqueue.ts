// The one entry point money flows call to send a callback: a row in the outbox, inside their transaction.
// Nothing is sent before that transaction commits; workers deliver it afterwards (supplement §5).
import assert from 'node:assert/strict';
import type { Tx } from '../db/types.ts';
import { newId } from '../ids/ids.ts';
import './types.ts';
import { limits } from '../../limits/index.ts';

export interface CallbackInput {
  readonly accountId: string;
  readonly url: string;
  /** Stable dotted name, e.g. `transaction.result`, `payout.result`. */
  readonly eventType: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly at: Date;
}

export async function enqueueCallback(tx: Tx, input: CallbackInput): Promise<string> {
  assert.ok(
    input.url.length > 0 && input.url.length <= limits.callbackUrlLengthMax,
    'callback url length',
  );
  assert.match(input.eventType, /^[a-z_]+(\.[a-z_]+)+$/, 'event type is dotted lower case');
  const id = newId('msg_', 24);
  const body = JSON.stringify(input.payload);
  await tx
    .insertInto('notifications')
    .values({
      id,
      account_id: input.accountId,
      url: input.url,
      event_type: input.eventType,
      payload: body,
      body,
      status: 'pending',
      attempts: 0,
      next_attempt_at: input.at,
      created_at: input.at,
      updated_at: input.at,
    })
    .execute();
  return id;
}
