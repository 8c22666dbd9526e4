// Appends one row to an audit chain, inside the caller's transaction (decision 531): the change and its record
// commit together or not at all. The chain's head row is locked first (an upsert, so a chain's first row races
// safely), so the writers of one chain queue and each row hashes the one before it. Head last: a command takes
// its business and ledger locks before it, so every writer takes them in the same order.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Tx } from '../db/types.ts';
import { newId } from '../ids/ids.ts';
import type { Actor } from './actor.ts';
import './types.ts';

/** The chain of a change that names no account (an operator's service-wide command). */
export const serviceChain = 'service';
/** The previous hash of a chain's first row. */
export const genesisHash = '0'.repeat(64);

export interface AuditEntry {
  /** The account the change belongs to, or serviceChain. */
  readonly chain: string;
  readonly actor: Actor;
  /** What was done: `POST /api/disputes/:id/accept`, `disputes open`, ... */
  readonly action: string;
  /** The object changed (its id), when one is named. */
  readonly target: string | null;
  readonly requestId: string | null;
  readonly at: Date;
}

export interface AuditRowFields {
  readonly id: string;
  readonly chain: string;
  readonly seq: bigint;
  readonly actorKind: string;
  readonly actor: string;
  readonly action: string;
  readonly target: string | null;
  readonly requestId: string | null;
  readonly at: Date;
  readonly prevHash: string;
}

/** The row's hash: SHA-256 over its fields, the previous row's hash among them, as one JSON array. */
export function auditHash(row: AuditRowFields): string {
  const text = JSON.stringify([
    row.chain,
    row.seq.toString(),
    row.id,
    row.actorKind,
    row.actor,
    row.action,
    row.target,
    row.requestId,
    row.at.toISOString(),
    row.prevHash,
  ]);
  return crypto.hash('sha256', text, 'hex');
}

export async function recordAudit(tx: Tx, entry: AuditEntry): Promise<void> {
  const head = await sql<{ seq: string; hash: string }>`
    INSERT INTO audit_heads (chain, seq, hash) VALUES (${entry.chain}, 0, ${genesisHash})
    ON CONFLICT (chain) DO UPDATE SET seq = audit_heads.seq
    RETURNING seq::text AS seq, hash`.execute(tx);
  const last = head.rows[0]!;
  const fields: AuditRowFields = {
    id: newId('aud', 20),
    chain: entry.chain,
    seq: BigInt(last.seq) + 1n,
    actorKind: entry.actor.kind,
    actor: entry.actor.name,
    action: entry.action,
    target: entry.target,
    requestId: entry.requestId,
    at: entry.at,
    prevHash: last.hash,
  };
  const hash = auditHash(fields);
  await sql`
    WITH appended AS (
      INSERT INTO audit_log (id, chain, seq, actor_kind, actor, action, target, request_id, at, prev_hash, hash)
      VALUES (${fields.id}, ${fields.chain}, ${fields.seq}, ${fields.actorKind}, ${fields.actor}, ${fields.action},
        ${fields.target}, ${fields.requestId}, ${fields.at}, ${fields.prevHash}, ${hash}))
    UPDATE audit_heads SET seq = ${fields.seq}, hash = ${hash} WHERE chain = ${fields.chain}`.execute(
    tx,
  );
}
