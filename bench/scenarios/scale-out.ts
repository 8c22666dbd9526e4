// Create-transaction with 1, 2 and 4 `cobro serve` processes on one PostgreSQL, requests spread round robin: the
// processes share nothing but the database, so throughput should grow until the database is the limit. Each
// process is warmed up first, as every other load of the bench is: measured cold, a process's first requests (its
// JIT, its schemas compiled on first use) weighed twice as much with 2 processes and four times with 4.
import { measureCpu, type CpuShares } from '../support/cpu.ts';
import { runLoad, warmupRequestsFor, type LoadResult } from '../support/load.ts';
import { startCobro, type Spawned } from '../support/processes.ts';
import { prepareDatabase } from '../support/setup.ts';
import { postJson, transactionBody } from '../support/client.ts';

const processCounts = [1, 2, 4] as const;

export type ScaleOutResult = LoadResult & { readonly cpu: CpuShares | null };

export async function measureScaleOut(
  postgresUrl: string,
  requests: number,
  concurrency: number,
): Promise<Record<string, ScaleOutResult>> {
  const database = await prepareDatabase({ engine: 'postgres', postgresUrl, accounts: 1 });
  const account = database.accounts[0]!;
  const out: Record<string, ScaleOutResult> = {};
  try {
    for (const count of processCounts) {
      const servers: Spawned[] = [];
      try {
        for (let p = 0; p < count; p++)
          servers.push(await startCobro({ ...database.env, COBRO_WORKERS: '0' }));
        const warmup = warmupRequestsFor(requests);
        for (const [p, server] of servers.entries()) {
          const warmed = await runLoad(
            warmup,
            concurrency,
            async (i) =>
              (
                await postJson(
                  server.url,
                  account,
                  '/api/transaction',
                  transactionBody(i, { order: `scale-warmup-${count}-${p}-${i}` }),
                )
              ).status === 200,
          );
          if (warmed.ok !== warmup)
            throw new Error(`scale-out warm-up: ${warmed.ok} of ${warmup} answered`);
        }
        const cpu = measureCpu(servers.map((s) => s.pid));
        const load = await runLoad(requests, concurrency, async (i) => {
          const res = await postJson(
            servers[i % count]!.url,
            account,
            '/api/transaction',
            transactionBody(i, { order: `scale-${count}-${i}` }),
          );
          return res.status === 200 && res.body?.status === 'pending';
        });
        out[`processes${count}`] = { ...load, cpu: cpu.stop() };
      } finally {
        for (const s of servers) await s.stop();
      }
    }
    return out;
  } finally {
    await database.drop();
  }
}
