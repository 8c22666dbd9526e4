// Bounds on API keys and dashboard users (issue 37, decision 540).
import { dayMs, hourMs } from './units.ts';

export const keyLimits = {
  /** Keys one account may hold at once besides its primary pair (revoked and expired ones not counted). */
  keysPerAccountMax: 50,
  /** A key's name, as the merchant types it. */
  keyNameLengthMax: 100,
  /** The longest grace a rotation gives the old pair: 30 days. */
  rotationGraceHoursMax: 720,
  /** The dashboard warns about a key that stops working within this long. */
  keyExpiryWarningMs: 30 * dayMs,
  /** An hour of a rotation's grace, as `--grace-hours` counts it. */
  graceHourMs: hourMs,
} as const;
