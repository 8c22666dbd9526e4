// What a subscription's views are built from (subscription-views.ts): its row, client and plan, live cards,
// charges, billing cycles and status logs. They are read for a whole chunk of subscriptions at once, one statement
// per kind, never one per subscription: a 4000-row list page was about 24,000 statements, each of which held
// PGlite's thread in turn (issue 13 points 2 and 3).
import assert from 'node:assert/strict';
import { limits } from '../../limits/index.ts';
import type { DbOrTx } from '../../platform/db/types.ts';
import { clientsByIds, plansByIds, type ClientRow, type PlanRow } from './repository.ts';
import {
  liveCardsOf,
  statusLogsOf,
  subscriptionChargesOf,
  subscriptionCyclesOf,
  type CardRow,
  type ChargeRow,
  type CycleRow,
  type StatusLogRow,
  type SubscriptionRow,
} from './subscription-repository.ts';
import './types.ts';

export interface SubscriptionParts {
  readonly row: SubscriptionRow;
  readonly client: ClientRow;
  readonly plan: PlanRow;
  /** Newest first, as `liveCards` reads them: the first is the one charged. */
  readonly cards: readonly CardRow[];
  /** Oldest first, as `subscriptionCharges` reads them. */
  readonly charges: readonly ChargeRow[];
  readonly logs: readonly StatusLogRow[];
}

export interface SubscriptionPartsWithCycles extends SubscriptionParts {
  readonly cycles: readonly CycleRow[];
}

function bySubscription<Row extends { readonly subscription_id: string }>(
  rows: readonly Row[],
): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const group = groups.get(row.subscription_id);
    if (group === undefined) groups.set(row.subscription_id, [row]);
    else group.push(row);
  }
  return groups;
}

// The parts of up to `limits.dbReadChunkRowsMax` subscriptions of one account, in the rows' order: six statements
// with the cycles, five without, whatever the count. A caller with more rows reads them chunk by chunk, yielding
// between (subscription-service.ts).
type Rows = readonly SubscriptionRow[];
type Pause = () => Promise<unknown>;
const noPause: Pause = () => Promise.resolve();

export async function readParts(
  db: DbOrTx,
  accountId: string,
  rows: Rows,
  withCycles: true,
  pause?: Pause,
): Promise<SubscriptionPartsWithCycles[]>;
export async function readParts(
  db: DbOrTx,
  accountId: string,
  rows: Rows,
  withCycles: false,
  pause?: Pause,
): Promise<SubscriptionParts[]>;
/**
 * `pause` runs between the statements: a list passes a turn of the event loop, because on PGlite a statement's
 * awaits settle as microtasks, so the six statements of a chunk (about 15 ms each for 500 subscriptions here) would
 * otherwise hold every other request as one block.
 */
export async function readParts(
  db: DbOrTx,
  accountId: string,
  rows: Rows,
  withCycles: boolean,
  pause: Pause = noPause,
): Promise<SubscriptionParts[]> {
  assert.ok(rows.length <= limits.dbReadChunkRowsMax, 'readParts: one chunk at a time');
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const clients = new Map(
    (await clientsByIds(db, [...new Set(rows.map((r) => r.client_id))])).map((c) => [c.id, c]),
  );
  await pause();
  const plans = new Map(
    (await plansByIds(db, accountId, [...new Set(rows.map((r) => r.plan_id))])).map((p) => [
      p.id,
      p,
    ]),
  );
  await pause();
  const cards = bySubscription(await liveCardsOf(db, ids));
  await pause();
  const charges = bySubscription(await subscriptionChargesOf(db, ids));
  await pause();
  const logs = bySubscription(await statusLogsOf(db, ids));
  if (withCycles) await pause();
  const cycles = withCycles ? bySubscription(await subscriptionCyclesOf(db, ids)) : null;
  return rows.map((row) => {
    const client = clients.get(row.client_id);
    if (client === undefined) throw new Error(`subscription ${row.id} names a missing client`);
    const plan = plans.get(row.plan_id);
    if (plan === undefined) throw new Error(`subscription ${row.id} names a missing plan`);
    const parts = {
      row,
      client,
      plan,
      cards: cards.get(row.id) ?? [],
      charges: charges.get(row.id) ?? [],
      logs: logs.get(row.id) ?? [],
    };
    return cycles === null ? parts : { ...parts, cycles: cycles.get(row.id) ?? [] };
  });
}
