// What a dispute command answers: the dispute, or the rule that refused it (HTTP 200, status failed).
import type { AppContext } from '../../platform/context.ts';
import type { RuleFailure } from '../../platform/errors/errors.ts';
import type { DisputeResult } from './open.ts';
import { disputeView, type DisputeView } from './views.ts';

export function disputeAnswer(
  ctx: AppContext,
  result: DisputeResult,
): { readonly status: 'success'; readonly dispute: DisputeView } | RuleFailure {
  if (!result.ok) return result.failure;
  return { status: 'success', dispute: disputeView(result.dispute, ctx.config.timeZone) };
}
