// The retry schedule of supplement §5.3: delays after each failed attempt, jittered so a receiver that comes back
// after an outage is not hit by every pending callback in the same second.
import assert from 'node:assert/strict';
import { limits } from '../../limits/index.ts';

// The schedule itself (limits.retryDelaysMs, limits.retryJitterFraction) lives with the other bounds.
/**
 * Milliseconds to wait after failed attempt `attemptNo` of the current schedule, or null when the schedule is
 * exhausted. `random` is in [0, 1).
 */
export function retryDelayMs(attemptNo: number, random: number): number | null {
  assert.ok(Number.isInteger(attemptNo) && attemptNo >= 1, 'attempt numbers start at 1');
  assert.ok(random >= 0 && random < 1, 'random in [0, 1)');
  const base = limits.retryDelaysMs[attemptNo - 1];
  if (base === undefined) return null;
  return Math.round(
    base * (1 - limits.retryJitterFraction + 2 * limits.retryJitterFraction * random),
  );
}
