// Drives a fixed number of HTTP requests at a fixed concurrency and reports throughput and latency percentiles.
// Every figure of `npm run bench` comes out of this one loop, the limits' included, so they compare like for like.
import { performance } from 'node:perf_hooks';
import { cpuPerRequest, measureCpu, type CpuPerRequest } from './cpu.ts';

export interface LoadResult {
  readonly requests: number;
  readonly concurrency: number;
  readonly ok: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const loadLimits = { requestsMax: 200_000, concurrencyMax: 256, warmupRequestsMax: 500 } as const;

function percentile(sortedMs: readonly number[], p: number): number {
  const index = Math.min(
    sortedMs.length - 1,
    Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1),
  );
  return Math.round((sortedMs[index] ?? 0) * 100) / 100;
}

/**
 * Requests of the same kind sent before a measured load and not counted: V8 optimises a function only after many
 * calls, so the first thousand requests of a fresh process measure its compiler as much as the code. The limits and
 * Cobro's figures are warmed alike.
 */
export function warmupRequestsFor(requests: number): number {
  return Math.min(loadLimits.warmupRequestsMax, Math.ceil(requests / 4));
}

/** A load with the CPU it cost per request (the server's processes, PostgreSQL's and this load generator's). */
export type MeasuredLoad = LoadResult & { readonly cpu: CpuPerRequest | null };

/** runLoad, with the CPU per request of the processes `serverPids` (and PostgreSQL's, and this process's). */
export async function runMeasuredLoad(
  serverPids: readonly number[],
  requests: number,
  concurrency: number,
  send: (i: number) => Promise<boolean>,
): Promise<MeasuredLoad> {
  const cpu = measureCpu(serverPids);
  const load = await runLoad(requests, concurrency, send);
  return { ...load, cpu: cpuPerRequest(cpu.stop(), load.perSecond) };
}

/** `send(i)` makes request i and answers whether it succeeded; a thrown error counts as a failure. */
export async function runLoad(
  requests: number,
  concurrency: number,
  send: (i: number) => Promise<boolean>,
): Promise<LoadResult> {
  if (requests < 1 || requests > loadLimits.requestsMax)
    throw new RangeError(`requests must be 1..${loadLimits.requestsMax}`);
  if (concurrency < 1 || concurrency > loadLimits.concurrencyMax)
    throw new RangeError(`concurrency must be 1..${loadLimits.concurrencyMax}`);
  const latenciesMs: number[] = [];
  let ok = 0;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < requests; i = next++) {
      const started = performance.now();
      const succeeded = await send(i).catch(() => false);
      latenciesMs.push(performance.now() - started);
      if (succeeded) ok++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const durationMs = performance.now() - started;
  latenciesMs.sort((a, b) => a - b);
  return {
    requests,
    concurrency,
    ok,
    perSecond: Math.round((requests / durationMs) * 1000 * 10) / 10,
    p50Ms: percentile(latenciesMs, 50),
    p99Ms: percentile(latenciesMs, 99),
  };
}

/** Resident set size of a process in MB, from /proc (Linux), or null where there is none. */
async function rssMbOf(pid: number): Promise<number | null> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => null);
  const kb = status === null ? null : /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb === undefined || kb === null ? null : Math.round(Number(kb) / 1024);
}

/** Samples a process's RSS every `everyMs` until stopped, keeping the peak. */
export function watchRss(pid: number, everyMs = 100): { stop(): Promise<number | null> } {
  let peakMb: number | null = null;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const mb = await rssMbOf(pid);
      if (mb !== null && (peakMb === null || mb > peakMb)) peakMb = mb;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return peakMb;
    },
  };
}
