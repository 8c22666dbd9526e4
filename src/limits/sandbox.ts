// Bounds of the sandbox clock: how far one advance and all of them move an account's time, and the offsets kept
// in memory.
import { secondMs, dayMs } from './units.ts';

export const sandboxLimits = {
  /**
   * Sandbox clock offsets kept in memory per process (decision 260), dropped on every clock's move; the age bound
   * caps a notification channel that silently stops delivering, as the accounts' does.
   */
  sandboxOffsetsKeptMax: 10_000,
  sandboxOffsetKeptAgeMsMax: 60 * secondMs,
  // Sandbox clock.
  /** One advance moves an account's clock by at most this much. */
  sandboxAdvanceMsMax: 400 * dayMs,
  /**
   * How far ahead of the service clock an account's sandbox clock may run in all. Without a bound, repeated advances
   * took account time past year 9999, where timestamps no longer render or store and every payment and payout
   * failed with a 500.
   */
  sandboxOffsetMsMax: 100 * 366 * dayMs,
} as const;
