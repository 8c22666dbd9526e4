// A rotated webhook secret's grace (decision 1000): for the hours the operator gives (a day unless told, 0 for none)
// the retired secret keeps signing every callback beside the new one, so a merchant's verifier may move to the new
// secret at any moment of it. One retired secret at most, so a rotation with a grace during one is refused (decision
// 1150): run again after a lost terminal, it would retire the secret no one saw and stop the one the merchant
// verifies with. A rotation with 0 (after a leak) ends a grace under way at any time.
import { keyLimits } from '../../limits/index.ts';
import type { AppContext } from '../../platform/context.ts';
import type { Tx } from '../../platform/db/types.ts';
import { formatTimestamp } from '../../platform/time/time-format.ts';
import { hoursGraceMs, type AccountResult } from './keys.ts';

/** The grace, checked: whole hours from 0 (the old secret stops signing at once) to the bound. */
export function webhookGraceMs(graceHours: number): AccountResult<number> {
  return hoursGraceMs(graceHours, keyLimits.webhookSecretGraceHoursMax, '--webhook-grace-hours');
}

/** Whether a retired secret still signs at `now`, as delivery and `accounts show` read it. */
export function graceRuns(until: Date | null, now: Date): until is Date {
  return until !== null && now < until;
}

/**
 * The account's columns of a new webhook secret. With a grace the current secret (read under the rotation's lock,
 * still sealed) is retired beside it; no other one is retired then (a grace under way refuses the rotation). With 0
 * a grace under way ends now: the rotation after a leak.
 */
export function retiringColumns(
  ctx: AppContext,
  freshSecret: string,
  currentSealed: string,
  graceMs: number,
  now: Date,
) {
  return {
    webhook_secret_enc: ctx.secrets.seal(freshSecret),
    ...(graceMs === 0
      ? { webhook_secret_previous_enc: null, webhook_secret_previous_until: null }
      : {
          webhook_secret_previous_enc: currentSealed,
          webhook_secret_previous_until: new Date(now.getTime() + graceMs),
        }),
  };
}

const rotationWithGrace = 'cobro accounts rotate --webhook-grace-hours ';

/**
 * The refusal of a second grace, one line: when the running one began (its rotation's audit row, written in the
 * rotation's commit; a rotation by no command has none), when it ends, and the two ways on.
 */
export async function graceUnderWayRefusal(
  ctx: AppContext,
  tx: Tx,
  accountId: string,
  until: Date,
  target: 'all' | 'tokens' | 'webhook-secret',
): Promise<string> {
  const began = await tx
    .selectFrom('audit_log')
    .select('at')
    .where('chain', '=', accountId)
    .where('action', 'like', `${rotationWithGrace}%`)
    .where('action', '<>', `${rotationWithGrace}0`)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  const zone = ctx.config.timeZone;
  const rotated =
    began === undefined
      ? 'the webhook secret was rotated'
      : `the webhook secret was rotated at ${formatTimestamp(began.at, zone)}`;
  return (
    `${rotated}, its grace runs until ${formatTimestamp(until, zone)}: cobro accounts show ${accountId} shows the ` +
    `current secret; --webhook-grace-hours 0 ends the grace now` +
    (target === 'all' ? '; --only tokens rotates the tokens alone' : '')
  );
}
