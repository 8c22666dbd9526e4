// Appends rows to an audit chain, inside the caller's transaction (decisions 531, 565): the change and its record
// commit together or not at all. One statement a chain, whatever the number of rows: cobro_audit_append (migration
// 0590) locks the chain's head row (creating it first if the chain has none) and holds it to commit, chains
// the rows in the order given and moves the head past the last. Head last: a command takes its business and
// ledger locks before it, so every writer takes them in the same order.
import { sql } from 'kysely';
import type { Tx } from '../db/types.ts';
import { newId } from '../ids/ids.ts';
import type { Actor } from './actor.ts';
import './types.ts';

/** The chain of a change that names no account (an operator's service-wide command). */
export const serviceChain = 'service';

export interface AuditEntry {
  /** The account the change belongs to, or serviceChain. */
  readonly chain: string;
  readonly actor: Actor;
  /** What was done: `POST /api/disputes/:id/accept`, `cobro disputes open`, ... */
  readonly action: string;
  /** The object changed (its id), when one is named. */
  readonly target: string | null;
  readonly requestId: string | null;
  readonly at: Date;
}

/**
 * Rows as the arrays cobro_audit_append takes after the chain, in its order: ids, actor kinds, actors, actions,
 * targets, request ids, times (a statement that appends them itself binds these, payout-statement.ts).
 */
export function auditColumns(entries: readonly AuditEntry[]): unknown[][] {
  return [
    entries.map(() => newId('aud', 20)),
    entries.map((e) => e.actor.kind),
    entries.map((e) => e.actor.name),
    entries.map((e) => e.action),
    entries.map((e) => e.target),
    entries.map((e) => e.requestId),
    entries.map((e) => e.at),
  ];
}

/** Appends one chain's rows, in their order, in one statement. */
async function appendChain(tx: Tx, chain: string, entries: readonly AuditEntry[]): Promise<void> {
  const [ids, kinds, actors, actions, targets, requestIds, ats] = auditColumns(entries);
  await sql`SELECT cobro_audit_append(${chain}, ${ids}::text[], ${kinds}::text[], ${actors}::text[],
    ${actions}::text[], ${targets}::text[], ${requestIds}::text[], ${ats}::timestamptz[])`.execute(
    tx,
  );
}

/**
 * Appends the rows of a change (a group commit's: one a request), one statement a chain, the chains in the order of
 * their names so two writers of the same chains lock their heads in one order.
 */
export async function recordAudits(tx: Tx, entries: readonly AuditEntry[]): Promise<void> {
  const chains = [...new Set(entries.map((e) => e.chain))].sort();
  for (const chain of chains)
    await appendChain(
      tx,
      chain,
      entries.filter((e) => e.chain === chain),
    );
}

export async function recordAudit(tx: Tx, entry: AuditEntry): Promise<void> {
  await recordAudits(tx, [entry]);
}
