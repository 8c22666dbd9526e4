// An account's audit trail, newest first (cobro audit list, the dashboard's page).
import type { DbOrTx } from '../db/types.ts';
import { formatTimestamp } from '../time/time-format.ts';
import './types.ts';

export interface AuditView {
  readonly id: string;
  readonly position: string;
  readonly at: string;
  readonly actor: string;
  readonly actor_kind: string;
  readonly action: string;
  readonly target: string | null;
  readonly request_id: string | null;
}

export async function listAudit(
  db: DbOrTx,
  chain: string,
  limit: number,
  timeZone: string,
): Promise<readonly AuditView[]> {
  const rows = await db
    .selectFrom('audit_log')
    .selectAll()
    .where('chain', '=', chain)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    position: String(r.seq),
    at: formatTimestamp(r.at, timeZone),
    actor: r.actor,
    actor_kind: r.actor_kind,
    action: r.action,
    target: r.target,
    request_id: r.request_id,
  }));
}
