// The two limits of one engine, measured in the same run as Cobro's figures: Fastify doing nothing, and Fastify
// plus one INSERT on a fresh database of that engine.
import { runLoad, runMeasuredLoad, warmupRequestsFor, type MeasuredLoad } from '../support/load.ts';
import { startLimitServer } from '../support/processes.ts';
import { prepareDatabase, type BenchEngine } from '../support/setup.ts';

export interface Limits {
  readonly noop: MeasuredLoad;
  readonly insert: MeasuredLoad;
}

/** `staticReads`: how many noops are measured (as many as Cobro's static reads, bench/run.ts). */
export async function measureLimits(
  engine: BenchEngine,
  postgresUrl: string,
  requests: number,
  staticReads: number,
  concurrency: number,
): Promise<Limits> {
  const database = await prepareDatabase({ engine, postgresUrl, accounts: 1 });
  const server = await startLimitServer(
    database.env.DATABASE_URL !== undefined
      ? { DATABASE_URL: database.env.DATABASE_URL }
      : { DATA_DIR: database.env.DATA_DIR! },
  );
  try {
    const noopOnce = async () => {
      const res = await fetch(`${server.url}/noop`);
      await res.arrayBuffer();
      return res.status === 200;
    };
    const insertOnce = async (order: string) => {
      const res = await fetch(`${server.url}/insert`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'payer@example.com', order, amount: 25000 }),
      });
      await res.arrayBuffer();
      return res.status === 200;
    };
    const warmup = warmupRequestsFor(requests);
    await runLoad(warmupRequestsFor(staticReads), concurrency, noopOnce);
    const noop = await runMeasuredLoad([server.pid], staticReads, concurrency, noopOnce);
    await runLoad(warmup, concurrency, (i) => insertOnce(`limit-warmup-${i}`));
    const insert = await runMeasuredLoad([server.pid], requests, concurrency, (i) =>
      insertOnce(`limit-${i}`),
    );
    return { noop, insert };
  } finally {
    await server.stop();
    await database.drop();
  }
}
