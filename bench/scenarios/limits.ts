// The limits of one engine, measured in the same run as Cobro's figures: Fastify doing nothing, Fastify plus one
// INSERT, and Fastify plus group-committed INSERTs (the batching limit, bench/limit-server.ts) on a fresh database
// of that engine; and the limit server's peak RSS over all three, for Cobro's peak to be read beside.
import {
  runLoad,
  runMeasuredLoad,
  warmupRequestsFor,
  watchRss,
  type MeasuredLoad,
} from '../support/load.ts';
import { startLimitServer } from '../support/processes.ts';
import { prepareDatabase, type BenchEngine } from '../support/setup.ts';

export interface Limits {
  readonly noop: MeasuredLoad;
  readonly insert: MeasuredLoad;
  readonly batchedInsert: MeasuredLoad;
  readonly peakRssMb: number | null;
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
  const rss = watchRss(server.pid);
  try {
    const noopOnce = async () => {
      const res = await fetch(`${server.url}/noop`);
      await res.arrayBuffer();
      return res.status === 200;
    };
    const insertOnce = async (route: string, order: string) => {
      const res = await fetch(`${server.url}${route}`, {
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
    await runLoad(warmup, concurrency, (i) => insertOnce('/insert', `limit-warmup-${i}`));
    const insert = await runMeasuredLoad([server.pid], requests, concurrency, (i) =>
      insertOnce('/insert', `limit-${i}`),
    );
    await runLoad(warmup, concurrency, (i) => insertOnce('/insert-batched', `batch-warmup-${i}`));
    const batchedInsert = await runMeasuredLoad([server.pid], requests, concurrency, (i) =>
      insertOnce('/insert-batched', `batch-${i}`),
    );
    return { noop, insert, batchedInsert, peakRssMb: await rss.stop() };
  } finally {
    await rss.stop();
    await server.stop();
    await database.drop();
  }
}
