// The retry schedule of supplement §5.3: delays after each failed attempt, jittered so a receiver that comes back
// after an outage is not hit by every pending callback in the same second.
import assert from 'node:assert/strict';

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/** Delay before retry n+1 after failed attempt n (1-based); attempts beyond the list end in `failed`. */
export const retryDelaysMs: readonly number[] = [
  5 * second, 5 * minute, 30 * minute, 2 * hour, 5 * hour, 10 * hour, 14 * hour, 20 * hour, 24 * hour,
];

/** One first attempt plus one per scheduled retry. */
export const attemptsMax = retryDelaysMs.length + 1;

/** Each delay moves by up to this fraction either way. */
export const jitterFraction = 0.1;

/**
 * Milliseconds to wait after failed attempt `attemptNo` of the current schedule, or null when the schedule is
 * exhausted. `random` is in [0, 1).
 */
export function retryDelayMs(attemptNo: number, random: number): number | null {
  assert.ok(Number.isInteger(attemptNo) && attemptNo >= 1, 'attempt numbers start at 1');
  assert.ok(random >= 0 && random < 1, 'random in [0, 1)');
  const base = retryDelaysMs[attemptNo - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - jitterFraction + 2 * jitterFraction * random));
}
