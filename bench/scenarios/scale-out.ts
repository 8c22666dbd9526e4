// Create-transaction with 1, 2 and 4 `cobro serve` processes on one PostgreSQL, requests spread round robin: the
// processes share nothing but the database, so throughput should grow until the database is the limit.
import { measureCpu, type CpuShares } from '../support/cpu.ts';
import { runLoad, type LoadResult } from '../support/load.ts';
import { startCobro, type Spawned } from '../support/processes.ts';
import { prepareDatabase } from '../support/setup.ts';
import { postJson, transactionBody } from '../support/client.ts';

export const processCounts = [1, 2, 4] as const;

export type ScaleOutResult = LoadResult & { readonly cpu: CpuShares | null };

export async function measureScaleOut(postgresUrl: string, requests: number, concurrency: number): Promise<Record<string, ScaleOutResult>> {
  const database = await prepareDatabase({ engine: 'postgres', postgresUrl, accounts: 1 });
  const account = database.accounts[0]!;
  const out: Record<string, ScaleOutResult> = {};
  try {
    for (const count of processCounts) {
      const servers: Spawned[] = [];
      try {
        for (let p = 0; p < count; p++) servers.push(await startCobro({ ...database.env, COBRO_WORKERS: '0' }));
        const cpu = measureCpu(servers.map((s) => s.pid));
        const load = await runLoad(requests, concurrency, async (i) => {
          const res = await postJson(servers[i % count]!.url, account, '/api/transaction', transactionBody(i, { order: `scale-${count}-${i}` }));
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
