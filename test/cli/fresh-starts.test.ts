// Starting never deadlocks (decision 410): 20 fresh embedded servers, started through `npm start` with their output
// on pipes (the way that, by issue 29's count, hung 1 start in 4 under load), three at a time beside a core kept
// busy, each on an empty DATA_DIR and a port of its own, must every one answer /readyz. bench/fresh-starts.ts runs
// 100. A guard against a hang coming back: on a box at load 12 the old code passed it too (decision 410).
import { describe, expect, it } from 'vitest';
import { busyCore, freshStarts } from '../support/fresh-starts.ts';

describe('fresh starts', () => {
  it('gets every one of 20 fresh `npm start`s ready, three at a time beside a busy core', async () => {
    // Niced: it takes every idle moment of a core but leaves the two cores of CI to the starts, which run after the
    // rest of the suite (the unit-starts project, decision 610): about a minute.
    const busy = busyCore(19);
    try {
      const results = await freshStarts({
        count: 20,
        concurrency: 3,
        startTimeoutMs: 90_000,
        env: { READY_TIMEOUT_MS: '60000' },
      });
      expect(results.filter((r) => !r.ready).map((r) => r.failure)).toEqual([]);
      expect(results).toHaveLength(20);
    } finally {
      await busy.stop();
    }
  }, 240_000);
});
