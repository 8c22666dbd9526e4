// The operator's view of Oneclick card removals (decision 984, after 990): `cobro subscriptions removals` lists them
// (a given-up one was only in the log and the table), and `cobro subscriptions retry-removal` makes a given-up one
// due again, for one more try by the due work.
import type { AppContext } from '../../platform/context.ts';
import type { DbOrTx } from '../../platform/db/types.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';

export const cardRemovalStates = ['due', 'done', 'kept', 'given_up'] as const;
type CardRemovalStateName = (typeof cardRemovalStates)[number];

export interface CardRemovalSummary {
  readonly card_id: string;
  readonly state: CardRemovalStateName;
  readonly account_id: string;
  readonly subscription_id: string;
  readonly client_id: string;
  readonly card: { readonly brand: string; readonly last_4_digits: string };
  readonly tries: number;
  /** Of the tries, those Transbank refused, and those busy or unanswered (counted apart, decision 1105). */
  readonly refusals: number;
  readonly busy: number;
  /** The next try while due (null: at the due work's next run). */
  readonly due_at: string | null;
  readonly last_error: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface CardRemovalFilter {
  readonly accountId: string | null;
  readonly state?: CardRemovalStateName;
  readonly offset: number;
  readonly limit: number;
}

function filtered(db: DbOrTx, f: CardRemovalFilter) {
  let q = db
    .selectFrom('oneclick_card_removals as r')
    .innerJoin('su_cards as c', 'c.id', 'r.card_id');
  if (f.accountId !== null) q = q.where('r.account_id', '=', f.accountId);
  if (f.state !== undefined) q = q.where('r.state', '=', f.state);
  return q;
}

/** A page of removals, the last changed first, and how many match. */
export async function listCardRemovals(
  ctx: AppContext,
  f: CardRemovalFilter,
): Promise<{ removals: CardRemovalSummary[]; total: number }> {
  const [rows, count] = await Promise.all([
    filtered(ctx.db, f)
      .select([
        'r.card_id',
        'r.state',
        'r.account_id',
        'c.subscription_id',
        'c.client_id',
        'c.brand',
        'c.last4',
        'r.tries',
        'r.refusals',
        'r.due_at',
        'r.last_error',
        'r.created_at',
        'r.updated_at',
      ])
      .orderBy('r.updated_at', 'desc')
      .orderBy('r.card_id', 'desc')
      .offset(f.offset)
      .limit(f.limit)
      .execute(),
    filtered(ctx.db, f)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  const at = (d: Date) => formatTimestamp(d, ctx.config.timeZone);
  return {
    total: Number(count.n),
    removals: rows.map((r) => ({
      card_id: r.card_id,
      state: r.state,
      account_id: r.account_id,
      subscription_id: r.subscription_id,
      client_id: r.client_id,
      card: { brand: r.brand, last_4_digits: r.last4 },
      tries: r.tries,
      refusals: r.refusals,
      busy: r.tries - r.refusals,
      due_at: r.due_at === null ? null : at(r.due_at),
      last_error: r.last_error,
      created_at: at(r.created_at),
      updated_at: at(r.updated_at),
    })),
  };
}

export type RetryResult =
  | { readonly ok: true; readonly accountId: string; readonly tries: number }
  | { readonly ok: false; readonly code: 'unknown' | 'not_given_up'; readonly error: string };

/**
 * A given-up removal made due now, in the caller's transaction: the due work's next run sends it once more. Its
 * tries are kept (they also name the try that holds the row), so a failure of that try gives it up again at once;
 * `last_error` stays until that try's outcome replaces it.
 */
export async function retryCardRemoval(db: DbOrTx, cardId: string, at: Date): Promise<RetryResult> {
  const row = await db
    .selectFrom('oneclick_card_removals')
    .select(['account_id', 'state', 'tries'])
    .where('card_id', '=', cardId)
    .forUpdate()
    .executeTakeFirst();
  if (row === undefined)
    return { ok: false, code: 'unknown', error: `no Oneclick card removal for card ${cardId}` };
  if (row.state !== 'given_up')
    return {
      ok: false,
      code: 'not_given_up',
      error: `the removal of card ${cardId} is ${row.state}, not given_up: nothing to retry`,
    };
  await db
    .updateTable('oneclick_card_removals')
    .set({ state: 'due', due_at: null, updated_at: at })
    .where('card_id', '=', cardId)
    .where('state', '=', 'given_up')
    .execute();
  return { ok: true, accountId: row.account_id, tries: row.tries };
}
