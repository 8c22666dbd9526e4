// The Wallet summary (seed): balance, latest movement and a page of movements, newest first. One statement answers it
// (wallet-summary-statement.ts, decision 585); a page larger than a chunk reads its later movements in further chunks.
import assert from 'node:assert/strict';
import type { AppContext } from '../../platform/context.ts';
import { readInChunks } from '../../platform/db/chunked-read.ts';
import { notFound } from '../../platform/errors/errors.ts';
import { movementPlace } from './repository.ts';
import { minorAsExactInteger } from '../../platform/money/json-number.ts';
import { movementBody } from './views.ts';
import {
  readSummaryChunk,
  seqBeforeAll,
  type SummaryAnswer,
  type SummaryChunk,
} from './wallet-summary-statement.ts';

export interface SummaryQuery {
  readonly accountId: string;
  readonly currency: string;
  readonly page: number;
  readonly perPage: number;
}

/**
 * The answer for `count` movements from the chunk `first` describes (its limit is the chunk's size): that chunk,
 * then, while chunks come back full, the movements after the last one read.
 */
async function readSummary(
  ctx: AppContext,
  count: number,
  first: Omit<SummaryChunk, 'limit'>,
): Promise<SummaryAnswer> {
  let head: SummaryAnswer | undefined;
  const movements = await readInChunks(
    count,
    async (limit) => {
      head = await readSummaryChunk(ctx.db, { ...first, limit });
      return head.movements;
    },
    async (last, limit) =>
      (
        await readSummaryChunk(ctx.db, {
          accountId: first.accountId,
          currency: first.currency,
          limit,
          offset: 0,
          seqBefore: last.seq,
        })
      ).movements,
  );
  assert.ok(head !== undefined, 'readInChunks reads the first chunk');
  return { ...head, movements };
}

function render(ctx: AppContext, q: SummaryQuery, answer: SummaryAnswer, filterId: string | null) {
  const currentId = answer.currentId ?? '';
  return {
    status: 'success' as const,
    current_id: currentId,
    amount_available: minorAsExactInteger(BigInt(answer.balance)),
    currency: q.currency,
    filter: {
      page: q.page,
      per_page: q.perPage,
      currency: q.currency,
      id: filterId ?? currentId,
    },
    wallet_movements: answer.movements.map((m) => movementBody(ctx, m)),
  };
}

export type WalletSummaryBody = ReturnType<typeof render>;

/** The page as one statement reads it now (summary-reads.ts shares it between concurrent readers). */
export async function readWalletSummary(
  ctx: AppContext,
  q: SummaryQuery,
): Promise<WalletSummaryBody> {
  const answer = await readSummary(ctx, q.perPage, {
    accountId: q.accountId,
    currency: q.currency,
    // Up to 3 999 996 000 within the documented bounds: past INTEGER, so the function takes a BIGINT (migration 0480).
    offset: (q.page - 1) * q.perPage,
    seqBefore: seqBeforeAll,
  });
  return render(ctx, q, answer, null);
}

/** One movement in the summary envelope; the filter names it and the balance is of its currency. */
export async function walletMovement(ctx: AppContext, accountId: string, movementId: string) {
  const place = await movementPlace(ctx.db, accountId, movementId);
  if (place === undefined) throw notFound('wallet movement');
  // The page of one movement that starts at it: the newest of those older than the next seq.
  const answer = await readSummary(ctx, 1, {
    accountId,
    currency: place.currency,
    offset: 0,
    seqBefore: (BigInt(place.seq) + 1n).toString(),
  });
  assert.equal(answer.movements[0]?.id, movementId, 'the movement read by id is still there');
  return render(
    ctx,
    { accountId, currency: place.currency, page: 1, perPage: 1 },
    answer,
    movementId,
  );
}
