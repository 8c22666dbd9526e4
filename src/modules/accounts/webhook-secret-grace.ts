// A rotated webhook secret's grace (decision 1000): for the hours the operator gives (a day unless told, 0 for none)
// the retired secret keeps signing every callback beside the new one, so a merchant's verifier may move to the new
// secret at any moment of it. One retired secret at most: a rotation during a grace retires the secret it replaces
// and forgets the one retired before, whose grace ends then.
import { keyLimits } from '../../limits/index.ts';

type AccountResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** The grace, checked: whole hours from 0 (the old secret stops signing at once) to the bound. */
export function webhookGraceMs(graceHours: number): AccountResult<number> {
  if (
    !Number.isSafeInteger(graceHours) ||
    graceHours < 0 ||
    graceHours > keyLimits.webhookSecretGraceHoursMax
  )
    return {
      ok: false,
      error: `--webhook-grace-hours must be a whole number from 0 to ${keyLimits.webhookSecretGraceHoursMax}`,
    };
  return { ok: true, value: graceHours * keyLimits.graceHourMs };
}
