// The audit rows of a group commit (decision 565): a grouped request (a keyless create or payout, decision 470)
// carries its row, all but the object it creates, on its context (`auditDraft`, set by the command runner), and the
// group that commits it appends the rows of its written requests in the group's own transaction, with one statement
// (recordAudits), or inside its own write statement (a payout's, payout-statement.ts). A context without a draft (a caller with the database, not a request) records nothing.
import type { AppContext } from '../context.ts';
import type { Tx } from '../db/types.ts';
import { recordAudits, type AuditEntry } from './record.ts';

export type AuditDraft = Omit<AuditEntry, 'target'>;

declare module '../context.ts' {
  interface AppContext {
    /** The audit row of the grouped request this context runs, but its target (decision 565). */
    readonly auditDraft?: AuditDraft | null;
  }
}

export interface GroupedWrite {
  readonly ctx: AppContext;
  /** The id of the object the request created. */
  readonly target: string;
}

/** The audit rows of a group's written requests (none for a context without a draft). */
export function groupAuditEntries(written: readonly GroupedWrite[]): AuditEntry[] {
  return written.flatMap(({ ctx, target }) =>
    ctx.auditDraft == null ? [] : [{ ...ctx.auditDraft, target }],
  );
}

/** Appends the audit rows of a group's written requests in the group's transaction `tx`. */
export async function recordGroupAudit(tx: Tx, written: readonly GroupedWrite[]): Promise<void> {
  const entries = groupAuditEntries(written);
  if (entries.length > 0) await recordAudits(tx, entries);
}

/** Whether any of a group's requests has a row to record (else its write needs no transaction around it). */
export function anyAudited(contexts: readonly AppContext[]): boolean {
  return contexts.some((ctx) => ctx.auditDraft != null);
}
