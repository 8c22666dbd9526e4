// The one place an API change of state is recorded (decision 531): the command runner wraps every command with
// `audited`, so each state-changing route (every one runs as a command) leaves an audit row in the command's own
// transaction, with no line in the route. A refusal records nothing: thrown, it rolls the command back; answered
// as `status: failed` or `ok: false` (or marked unchanged), the command wrote nothing to record.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/types.ts';
import { apiActor } from './actor.ts';
import { recordAudits, type AuditEntry } from './record.ts';
import type { AuditDraft } from './grouped.ts';

const unchangedMark = Symbol('audit: nothing changed');

/** Marks an answer that changed nothing though it is no refusal (e.g. every id of a batch unknown). */
export function markUnchanged<T extends object>(value: T): T {
  Object.defineProperty(value, unchangedMark, { value: true, enumerable: false });
  return value;
}

function changedNothing(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return (
    (value as { status?: unknown }).status === 'failed' ||
    (value as { ok?: unknown }).ok === false ||
    (value as Record<symbol, unknown>)[unchangedMark] === true
  );
}

/** The object a command's value names, for its audit row: given by a route whose value names it its own way. */
export type AuditTarget<T> = (value: T) => string | null;

/**
 * The object a request changed: the one its route names (decision 675), else the id in its path, else the id its
 * answer (or the object it wraps) names.
 */
function targetOf<T>(request: FastifyRequest, value: T, named?: AuditTarget<T>): string | null {
  const given = named?.(value) ?? null;
  if (given !== null) return given;
  const params = request.params as Readonly<Record<string, unknown>> | undefined;
  const fromPath = Object.values(params ?? {}).find((v) => typeof v === 'string');
  if (typeof fromPath === 'string') return fromPath;
  if (typeof value !== 'object' || value === null) return null;
  const answer = value as Readonly<Record<string, unknown>>;
  for (const field of ['id', 'identifier_payout', 'identifier', 'token']) {
    const id = answer[field];
    if (typeof id === 'string' && id.length > 0) return id;
  }
  // An answer that wraps its object (`{status, dispute: {id}}`, `{status, nullify: {id}}`).
  for (const inner of Object.values(answer)) {
    const id = typeof inner === 'object' && inner !== null ? (inner as { id?: unknown }).id : null;
    if (typeof id === 'string' && id.length > 0) return id;
  }
  return null;
}

function entryOf<T>(
  ctx: AppContext,
  request: FastifyRequest,
  value: T,
  named?: AuditTarget<T>,
): AuditEntry | null {
  const draft = draftOf(ctx, request);
  if (draft === null || changedNothing(value)) return null;
  return { ...draft, target: targetOf(request, value, named) };
}

/** A request's audit row but its target, which the command's answer (or the group that writes it) names. */
function draftOf(ctx: AppContext, request: FastifyRequest): AuditDraft | null {
  if (request.account === null) return null;
  return {
    chain: request.account.id,
    actor: apiActor(request),
    action: `${request.method} ${request.routeOptions.url ?? request.url}`,
    requestId: request.id,
    at: ctx.clock.now(),
  };
}

type TxCommand<T> = (ctx: AppContext, db: Tx) => Promise<T>;

/** An object a command made or changed in another account than the caller's: that account and the object's id. */
export interface OtherAccountObject {
  readonly account: string;
  readonly target: string;
}

/** The objects a command's value names in other accounts (a mall's store transactions, decision 920). */
export type AuditOthers<T> = (value: T) => readonly OtherAccountObject[];

/**
 * The rows of a request's objects in other accounts' chains (decision 920): the caller's actor named with its
 * account (`key:primary@acc...`), since in that chain a bare `key:primary` would read as the other account's own key.
 */
function othersOf(entry: AuditEntry, objects: readonly OtherAccountObject[]): AuditEntry[] {
  return objects
    .filter((o) => o.account !== entry.chain)
    .map((o) => ({
      ...entry,
      chain: o.account,
      actor: { kind: entry.actor.kind, name: `${entry.actor.name}@${entry.chain}` },
      target: o.target,
    }));
}

/**
 * The command, then its audit row in the same transaction, and the rows of the objects it made in other accounts'
 * chains: one append, chains in the order of their names, as every writer of several chains takes their heads.
 */
export function audited<T>(
  request: FastifyRequest,
  command: TxCommand<T>,
  target?: AuditTarget<T>,
  others?: AuditOthers<T>,
): TxCommand<T> {
  return async (ctx, db) => {
    const value = await command(ctx, db);
    const entry = entryOf(ctx, request, value, target);
    if (entry !== null) await recordAudits(db, [entry, ...othersOf(entry, others?.(value) ?? [])]);
    return value;
  };
}

/**
 * A grouped command (decision 470) writes in its account's group commit: it runs with the request's draft row on
 * its context, and the group writes the rows of the requests it commits in its own transaction (groupAuditRows,
 * decision 565), so only a change that commits leaves a row, and every one does.
 */
export function auditedGrouped<T>(
  request: FastifyRequest,
  grouped: ((ctx: AppContext) => Promise<T>) | undefined,
): ((ctx: AppContext) => Promise<T>) | undefined {
  if (grouped === undefined) return undefined;
  return (ctx) => grouped({ ...ctx, auditDraft: draftOf(ctx, request) });
}
