// A worker whose step fails (the database away) logs, waits longer each time and runs again; it never stops by
// itself (decision 420). Also: while the embedded database's disk is almost full, no step runs.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/platform/context.ts';
import { limits } from '../../src/limits/index.ts';
import { periodicWorker } from '../../src/workers/periodic.ts';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

function contextWith(logs: Array<Record<string, unknown>>, diskLow = false): AppContext {
  const logger = pino(
    { level: 'info' },
    {
      write: (line: string) => {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  return {
    logger,
    ...(diskLow ? { diskSpace: { low: () => true, stop: () => {} } } : {}),
  } as unknown as AppContext;
}

describe('periodicWorker', () => {
  it('backs off after failed steps, keeps running, and says when a step succeeds again', {
    timeout: 20_000,
  }, async () => {
    const logs: Array<Record<string, unknown>> = [];
    const stepsAtMs: number[] = [];
    const started = performance.now();
    const worker = periodicWorker({
      name: 'test',
      intervalMs: 10,
      step: async () => {
        stepsAtMs.push(performance.now() - started);
        if (stepsAtMs.length <= 2) throw refused();
        return false;
      },
    }).start(contextWith(logs));
    while (stepsAtMs.length < 4) await new Promise((resolve) => setTimeout(resolve, 20));
    await worker.stop();
    const [first, second, third, fourth] = stepsAtMs as [number, number, number, number];
    // 1 s after the first failure, 2 s after the second, then the beat again.
    expect(second - first).toBeGreaterThanOrEqual(limits.workerRetryMsMin - 20);
    expect(third - second).toBeGreaterThanOrEqual(2 * limits.workerRetryMsMin - 20);
    expect(fourth - third).toBeLessThan(limits.workerRetryMsMin);
    const failed = logs.filter((l) => l.msg === 'worker step failed: database unavailable');
    expect(failed.map((l) => [l.level, l.retryMs])).toEqual([
      [40, limits.workerRetryMsMin],
      [40, 2 * limits.workerRetryMsMin],
    ]);
    expect(logs.some((l) => l.msg === 'worker step succeeded again')).toBe(true);
  });

  it('runs no step while the embedded database disk is almost full', {
    timeout: 10_000,
  }, async () => {
    const logs: Array<Record<string, unknown>> = [];
    let steps = 0;
    const worker = periodicWorker({
      name: 'test',
      intervalMs: 10,
      step: async () => {
        steps++;
        return false;
      },
    }).start(contextWith(logs, true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await worker.stop();
    expect(steps).toBe(0);
    expect(logs.filter((l) => l.msg === 'worker step failed: database unavailable')).toHaveLength(
      1,
    );
  });
});
