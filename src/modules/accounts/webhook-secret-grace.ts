// A rotated webhook secret's grace (decision 1000): for the hours the operator gives (a day unless told, 0 for none)
// the retired secret keeps signing every callback beside the new one, so a merchant's verifier may move to the new
// secret at any moment of it. One retired secret at most: a rotation during a grace retires the secret it replaces
// and forgets the one retired before, whose grace ends then.
import { keyLimits } from '../../limits/index.ts';
import { hoursGraceMs, type AccountResult } from './keys.ts';

/** The grace, checked: whole hours from 0 (the old secret stops signing at once) to the bound. */
export function webhookGraceMs(graceHours: number): AccountResult<number> {
  return hoursGraceMs(graceHours, keyLimits.webhookSecretGraceHoursMax, '--webhook-grace-hours');
}
