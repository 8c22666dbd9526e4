// The command runner (decision 071): every request that changes state runs as one command in ONE database
// transaction that claims its Idempotency-Key, runs the command with a context whose `db` is that transaction,
// and stores the exact bytes it answers, all in one commit. A retry after any crash finds the stored answer
// (replay) or nothing at all (the whole unit rolled back) and runs once.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/types.ts';
import { ApiError } from '../errors/errors.ts';
import { inTransaction } from '../db/unit-of-work.ts';
import { requestHash } from '../idempotency/canonical.ts';
import {
  coversRequest,
  idempotencyKeyOf,
  normalisedPath,
  replayedHeader,
} from '../idempotency/plugin.ts';
import { claimKey, completeKey, keepCommitted, type StoredAnswer } from '../idempotency/store.ts';
import { renderError, renderValue, sendAnswer } from './render.ts';
import {
  audited,
  auditedGrouped,
  type AuditOthers,
  type AuditTarget,
} from '../audit/command-audit.ts';

/**
 * A command: reads and writes only through `tx.db` (the runner's transaction, also passed as `db` for the code that
 * takes a transaction by type; on PGlite the outer `ctx.db` would wait for this very transaction). It makes no
 * network call: work that leaves the database belongs in `afterCommit`.
 */
export type Command<T> = (tx: AppContext, db: Tx) => Promise<T>;

/**
 * A grouped command: the same request, run with the database and no transaction of the runner's. It writes in one
 * statement, in its account's next group commit, or in a transaction it opens itself (decisions 400, 430, 470).
 */
type GroupedCommand<T> = (ctx: AppContext) => Promise<T>;

export interface CommandOptions<T> {
  /**
   * Work that must not run inside the transaction (a network call). It runs after the effect committed and its
   * value is the answer; it must be safe to run again, because a crash before its answer is stored makes the
   * next retry (after the claim's lease) run it again with the committed value (JSON), never the command.
   */
  readonly afterCommit?: (ctx: AppContext, committed: T) => Promise<unknown>;
  /**
   * The route's runner for a request without an Idempotency-Key: the grouped form of the command, run with the
   * database, saving the BEGIN and COMMIT round trips (issue 13) and letting its write join a group commit. With a
   * key the runner still runs `command` in its own transaction, which claims the key and stores the answer in the
   * same commit. The route picks both; the command never asks which one runs it (decision 470).
   */
  readonly grouped?: GroupedCommand<T>;
  /**
   * The object the command's value names, for its audit row, when that value is no answer with an `id` (a refund
   * answered after the commit, a wallet movement's `identifier_wallet`). Not for `grouped`: its group names it.
   */
  readonly auditTarget?: AuditTarget<T>;
  /**
   * The objects the command made in other accounts than the caller's (a mall's store transactions): each gets a row
   * in its account's chain too, with the caller's row (decision 920). Not for `grouped`.
   */
  readonly auditOthers?: AuditOthers<T>;
  /**
   * The body as the command reads it, for the Idempotency-Key's hash, when the schema leaves a part of it to be read
   * by hand (a mall's tuples, an event's beneficiaries): a retry that writes `"30000"` where the first wrote `30000`
   * means the same and replays (decision 940). The schema has already coerced the typed fields of `request.body`.
   * A body the reader refuses is hashed as it came.
   */
  readonly bodyAsRead?: () => unknown;
}

interface KeyScope {
  readonly accountId: string;
  readonly key: string;
}

type Outcome<T> =
  | {
      readonly kind: 'answer';
      readonly answer: StoredAnswer;
      readonly replayed: boolean;
      readonly headers: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'after'; readonly committed: T };

/** A refusal that is the client's (4xx): the command rolls back, the answer is kept with the key. */
function refusalOf(error: unknown): ApiError | null {
  return error instanceof ApiError && error.httpStatus < 500 ? error : null;
}

/**
 * The bytes a step answers: its value rendered by the route's schema, or, when a key is kept, a client's refusal
 * rendered as the error handler would. Without a key there is nothing to store, so the one error handler renders it.
 */
async function answerOf(
  reply: FastifyReply,
  scope: KeyScope | null,
  step: () => Promise<unknown>,
): Promise<{ readonly answer: StoredAnswer; readonly headers: Readonly<Record<string, string>> }> {
  try {
    return { answer: renderValue(reply, await step()), headers: {} };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal === null || scope === null) throw error;
    return { answer: renderError(reply, refusal), headers: refusal.headers };
  }
}

/**
 * Claims the request's Idempotency-Key in `tx`: null when the command is to run, else the outcome the key already
 * holds (a stored answer, or a committed value whose after-commit step is to finish); a key in flight or used with
 * other parameters is refused.
 */
async function claimOrAnswer<T>(
  ctx: AppContext,
  tx: Tx,
  request: FastifyRequest,
  scope: KeyScope,
  bodyAsRead: (() => unknown) | undefined,
): Promise<Outcome<T> | null> {
  const claim = await claimKey(tx, {
    ...scope,
    method: request.method,
    path: normalisedPath(request.url),
    requestHash: requestHash(bodyAsRead === undefined ? request.body : bodyAsRead()),
    now: ctx.clock.now(),
    leaseMs: ctx.config.idempotencyLeaseMs,
  });
  switch (claim.kind) {
    case 'proceed':
      return null;
    case 'in_flight':
      throw new ApiError(
        'idempotency_in_flight',
        'a request with this Idempotency-Key is still being processed; retry later',
      );
    case 'mismatch':
      throw new ApiError(
        'idempotency_mismatch',
        'this Idempotency-Key was already used with other parameters',
      );
    case 'replay':
      return { kind: 'answer', answer: claim, replayed: true, headers: {} };
    case 'resume':
      return { kind: 'after', committed: JSON.parse(claim.committedJson) as T };
    default: {
      const never: never = claim;
      throw new Error(`unknown claim ${String(never)}`);
    }
  }
}

export async function runCommand<T>(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  command: Command<T>,
  options: CommandOptions<T> = {},
): Promise<FastifyReply> {
  const key = coversRequest(request) ? idempotencyKeyOf(request) : null;
  const scope: KeyScope | null =
    key === null || request.account === null ? null : { accountId: request.account.id, key };
  // Every command leaves its audit row (decision 531): in its transaction, or a grouped one in its group's (565).
  const grouped = auditedGrouped(request, options.grouped);
  const audit = audited(request, command, options.auditTarget, options.auditOthers);
  if (scope === null && grouped !== undefined) {
    if (options.afterCommit !== undefined)
      return finishAfterCommit(ctx, reply, null, await grouped(ctx), options);
    const { answer, headers } = await answerOf(reply, null, () => grouped(ctx));
    return sendAnswer(reply, answer, headers);
  }
  const outcome = await inTransaction(ctx.db, async (tx): Promise<Outcome<T>> => {
    const txCtx: AppContext = { ...ctx, db: tx };
    if (scope !== null) {
      const claimed = await claimOrAnswer<T>(ctx, tx, request, scope, options.bodyAsRead);
      if (claimed !== null) return claimed;
    }
    // With a key, under a savepoint, so a refusal thrown half-way rolls back the command's writes but not the claim.
    // Without one, a refusal rolls the whole transaction back, so the savepoint's two round trips buy nothing.
    const run = () =>
      scope === null ? audit(txCtx, tx) : inTransaction(tx, () => audit(txCtx, tx));
    if (options.afterCommit !== undefined) {
      const value = await run();
      if (scope !== null)
        await keepCommitted(tx, scope.accountId, scope.key, JSON.stringify(value));
      return { kind: 'after', committed: value };
    }
    const { answer, headers } = await answerOf(reply, scope, run);
    if (scope !== null) await completeKey(tx, scope.accountId, scope.key, answer);
    return { kind: 'answer', answer, replayed: false, headers };
  });
  if (outcome.kind === 'answer')
    return sendAnswer(
      reply,
      outcome.answer,
      outcome.replayed ? { [replayedHeader]: 'true' } : outcome.headers,
    );
  return finishAfterCommit(ctx, reply, scope, outcome.committed, options);
}

/** Runs the after-commit step outside any transaction, then stores its answer in a short commit of its own. */
async function finishAfterCommit<T>(
  ctx: AppContext,
  reply: FastifyReply,
  scope: KeyScope | null,
  committed: T,
  options: CommandOptions<T>,
): Promise<FastifyReply> {
  if (options.afterCommit === undefined)
    throw new Error('a committed command without an after-commit step');
  const afterCommit = options.afterCommit;
  const { answer, headers } = await answerOf(reply, scope, () => afterCommit(ctx, committed));
  if (scope !== null) await completeKey(ctx.db, scope.accountId, scope.key, answer);
  return sendAnswer(reply, answer, headers);
}

/** Route config of a state-changing route; the idempotency plugin refuses such a route without it. */
export const commandConfig = { command: true } as const;
