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

/**
 * The chain's rows newest first, at most `limit`; with `before` (a position), only the rows before it, so an
 * operator reads a trail longer than one page a page at a time (decision 1120).
 */
export async function listAudit(
  db: DbOrTx,
  chain: string,
  limit: number,
  timeZone: string,
  before?: bigint,
): Promise<readonly AuditView[]> {
  const rows = await db
    .selectFrom('audit_log')
    .selectAll()
    .where('chain', '=', chain)
    .$if(before !== undefined, (q) => q.where('seq', '<', before!))
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
