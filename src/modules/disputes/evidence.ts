// The merchant's answer to a dispute (decision 530): text and links to what it shows, before respond_by; the
// dispute moves to under_review, where more evidence may follow until the acquirer decides.
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { ruleFailure } from '../../platform/errors/errors.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import type { DisputeResult } from './open.ts';
import { lockedDispute } from './resolve.ts';
import { assertTransition, canMove } from './states.ts';

export interface EvidenceInput {
  readonly text: string;
  readonly urls: readonly string[];
}

export async function submitEvidence(
  ctx: AppContext,
  tx: Tx,
  accountId: string,
  id: string,
  evidence: EvidenceInput,
): Promise<DisputeResult> {
  const row = await lockedDispute(tx, accountId, id);
  if (!canMove(row.status, 'under_review'))
    return {
      ok: false,
      failure: ruleFailure('dispute_closed', { id: row.id, status: row.status }),
    };
  const at = await ctx.accountClock.now(accountId, tx);
  if (at.getTime() > row.respond_by.getTime())
    return {
      ok: false,
      failure: ruleFailure('dispute_response_late', {
        id: row.id,
        respondBy: formatTimestamp(row.respond_by, ctx.config.timeZone),
      }),
    };
  assertTransition(row.status, 'under_review');
  const dispute = await tx
    .updateTable('disputes')
    .set({
      status: 'under_review',
      evidence_text: evidence.text,
      evidence_urls: JSON.stringify(evidence.urls),
      updated_at: at,
    })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ok: true, dispute };
}
