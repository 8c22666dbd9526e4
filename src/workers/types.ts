// What a background worker is, apart from the list of them (index.ts), so a worker's own file never imports
// the list that imports it.
import type { AppContext } from '../platform/context.ts';

export interface RunningWorker {
  stop(): Promise<void>;
}

export interface WorkerDefinition {
  readonly name: string;
  start(ctx: AppContext): RunningWorker;
}
