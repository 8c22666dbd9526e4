// Appends one row to an audit chain, inside the caller's transaction (decision 531): the change and its record
// commit together or not at all. One statement: the chain's head row is upserted with the new position and the
// new row's hash, computed from the old head under its row lock (so the writers of one chain queue, and a chain's
// first row races safely), and the row is inserted from what the upsert returns. Head last: a command takes its
// business and ledger locks before it, so every writer takes them in the same order.
import { sql } from 'kysely';
import type { Tx } from '../db/types.ts';
import { newId } from '../ids/ids.ts';
import type { Actor } from './actor.ts';
import './types.ts';

/** The chain of a change that names no account (an operator's service-wide command). */
export const serviceChain = 'service';
/** The previous hash of a chain's first row. */
const genesisHash = '0'.repeat(64);

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

export async function recordAudit(tx: Tx, entry: AuditEntry): Promise<void> {
  const id = newId('aud', 20);
  const { chain, actor, action, target, requestId, at } = entry;
  const fields = sql`${id}, ${actor.kind}, ${actor.name}, ${action}, ${target}, ${requestId}, ${at}::timestamptz`;
  await sql`
    WITH head AS (
      INSERT INTO audit_heads AS h (chain, seq, prev_hash, hash)
      VALUES (${chain}, 1, ${genesisHash},
        cobro_audit_hash(${chain}, 1, ${id}, ${actor.kind}, ${actor.name}, ${action}, ${target}, ${requestId}, ${at}::timestamptz, ${genesisHash}))
      ON CONFLICT (chain) DO UPDATE SET seq = h.seq + 1, prev_hash = h.hash,
        hash = cobro_audit_hash(h.chain, h.seq + 1, ${id}, ${actor.kind}, ${actor.name}, ${action}, ${target}, ${requestId}, ${at}::timestamptz, h.hash)
      RETURNING seq, prev_hash, hash)
    INSERT INTO audit_log (chain, seq, id, actor_kind, actor, action, target, request_id, at, prev_hash, hash)
    SELECT ${chain}, head.seq, ${fields}, head.prev_hash, head.hash FROM head`.execute(tx);
}
