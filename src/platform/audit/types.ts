// The audit trail's tables (migration 0361, decision 531).
import type { Int8, Timestamp } from '../db/types.ts';

const actorKinds = ['api_key', 'dashboard', 'operator'] as const;
export type ActorKind = (typeof actorKinds)[number];

interface AuditLogTable {
  id: string;
  /** The chain the row belongs to: the account it is about, or `service` for an operator's change of no account. */
  chain: string;
  seq: Int8;
  actor_kind: ActorKind;
  actor: string;
  action: string;
  target: string | null;
  request_id: string | null;
  at: Timestamp;
  prev_hash: string;
  hash: string;
}

interface AuditHeadTable {
  chain: string;
  seq: Int8;
  prev_hash: string;
  hash: string;
}

declare module '../db/types.ts' {
  interface Database {
    audit_log: AuditLogTable;
    audit_heads: AuditHeadTable;
  }
}
