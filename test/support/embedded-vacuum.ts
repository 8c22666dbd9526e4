// Runs the embedded database's maintenance vacuum (decision 986) once over every table, as a process's first run
// does, and waits for its end (its log line), so a test reads sizes after every table was vacuumed.
import pino from 'pino';
import { expect } from 'vitest';
import { startWorkers } from '../../src/workers/index.ts';
import { embeddedVacuumWorkerAfter } from '../../src/workers/embedded-vacuum-worker.ts';
import type { TestApp } from './app.ts';

const waitsMax = 600;
const waitMs = 50;

/** The run's log line (`tables`, `heldMs`, `longestMs`, `longestTable`). */
export async function runVacuumWorker(app: TestApp): Promise<Record<string, unknown>> {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const vacuumed = () => logs.find((l) => l.msg === 'embedded database vacuumed');
  const workers = startWorkers({ ...app.ctx, logger }, [embeddedVacuumWorkerAfter(0)]);
  try {
    for (let i = 0; i < waitsMax && vacuumed() === undefined; i++)
      await new Promise((r) => setTimeout(r, waitMs));
  } finally {
    await workers.stop();
  }
  const done = vacuumed();
  expect(done, 'the worker logged no vacuum').toBeDefined();
  return done!;
}
