// Bounds on API keys and dashboard users (issue 37, decisions 540 and 541).
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
  /** Expiring keys the home page names. */
  keysShownMax: 5,
  /** An hour of a rotation's grace, as `--grace-hours` counts it. */
  graceHourMs: hourMs,
  /**
   * How long a rotated webhook secret keeps signing callbacks beside the new one when the operator names no grace
   * (decision 1000): a day to move the merchant's verifier.
   */
  webhookSecretGraceHoursDefault: 24,
  /** The longest such grace: 3 days, enough to cover a weekend; a leaked secret is rotated with 0. */
  webhookSecretGraceHoursMax: 72,
  /** `secrets rekey`'s key file: 64 hexadecimal characters and a line end, with room for a CRLF or spaces. */
  secretKeyFileBytesMax: 256,
  /** Sealed values `secrets rekey` reads and writes at a time: one page of a large card table in memory. */
  rekeyPageRowsMax: 500,
} as const;

export const userLimits = {
  /** A one-time sign-in link of an invitation works this long. */
  inviteMs: 24 * hourMs,
  /** A new password's length, in characters. */
  passwordLengthMin: 12,
  passwordLengthMax: 200,
  /** An e-mail address (RFC 5321's path limit). */
  emailLengthMax: 254,
  /** scrypt needs 128·N·r bytes (32 MiB at N = 2^15, r = 8): Node's default ceiling is just under that. */
  scryptMemoryBytesMax: 64 * 1024 * 1024,
  /**
   * PASSWORD_HASH_COST, scrypt's cost as log2 of N: 15 (N = 2^15, about 0.1 s a hash) in every deployment. Tests
   * lower it to 10 (32 times cheaper); the ceiling is the memory above.
   */
  passwordHashCostDefault: 15,
  passwordHashCostMin: 10,
  passwordHashCostMax: 15,
  /** Users one account may have. */
  usersPerAccountMax: 100,
} as const;
