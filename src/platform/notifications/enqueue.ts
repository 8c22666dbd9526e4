// The one entry point money flows call to send a callback: a row in the outbox, inside their transaction.
// Nothing is sent before that transaction commits; workers deliver it afterwards (supplement §5).
import assert from 'node:assert/strict';
import type { Tx } from '../db/types.ts';
import { newId } from '../ids/ids.ts';
import type { Insertable } from 'kysely';
import type { NotificationTable } from './types.ts';
import { limits } from '../../limits/index.ts';
import { rawJson } from '../money/json-number.ts';

export interface CallbackInput {
  readonly accountId: string;
  readonly url: string;
  /** Stable dotted name, e.g. `transaction.result`, `payout.result`. */
  readonly eventType: string;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly at: Date;
}

/**
 * A bigint in a payload is written as its digits: a JSON integer exact at any size, as the API's answers write one
 * (decision 720), where a number past 2^53 - 1 would name another value (decision 815).
 */
function exactIntegers(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? rawJson(value.toString()) : value;
}

/**
 * The outbox row of a callback, checked: what enqueueCallback inserts, or what a caller's own statement inserts with
 * its state change in one round trip (a payment's success, decision 600).
 */
export function callbackRow(input: CallbackInput): Insertable<NotificationTable> & { id: string } {
  assert.ok(
    input.url.length > 0 && input.url.length <= limits.callbackUrlLengthMax,
    'callback url length',
  );
  assert.match(input.eventType, /^[a-z_]+(\.[a-z_]+)+$/, 'event type is dotted lower case');
  const body = JSON.stringify(input.payload, exactIntegers);
  return {
    id: newId('msg_', 24),
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
  };
}

export async function enqueueCallback(tx: Tx, input: CallbackInput): Promise<string> {
  const row = callbackRow(input);
  await tx.insertInto('notifications').values(row).execute();
  return row.id;
}
