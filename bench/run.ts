// `npm run bench`: every figure of issue 13 beside its limit measured in the same run (Fastify doing nothing,
// Fastify plus one INSERT on the same engine), as ratios with p50/p99 and RSS; one JSON file per run in
// bench/results/ with the machine and its load. Targets are printed beside each ratio; the bench reports, it
// never fails on a target (this box is shared and noisy: read the ratios, not the absolute figures).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../src/platform/time/clock.ts';
import { measureLimits } from './scenarios/limits.ts';
import { measureCobro } from './scenarios/cobro.ts';
import { measureScaleOut } from './scenarios/scale-out.ts';
import { figureRows, renderTable } from './support/report.ts';
import type { BenchEngine } from './support/setup.ts';

const postgresUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new Error(`${name} must be a positive integer`);
  return Number(raw);
}

const sizes = {
  requests: positiveInt('BENCH_REQUESTS', 2000),
  /**
   * Reads of a static answer (`GET /api/banks`) and of its limit (Fastify doing nothing): each costs a few tens of
   * µs, so 2,000 take a third of a second, a window one garbage collection or a neighbour's burst decides.
   */
  staticReads: positiveInt('BENCH_STATIC_READS', 10000),
  payouts: positiveInt('BENCH_PAYOUTS', 2000),
  payments: positiveInt('BENCH_PAYMENTS', 500),
  /** Callbacks put in the outbox beside the payments' own, for the delivery rate. */
  callbacks: positiveInt('BENCH_CALLBACKS', 3000),
  concurrency: positiveInt('BENCH_CONCURRENCY', 16),
};
const engines = (process.env.BENCH_ENGINES ?? 'postgres,pglite')
  .split(',')
  .filter((e): e is BenchEngine => e === 'postgres' || e === 'pglite');

const startedAt = systemClock.now();
const loadAverage1mAtStart = Math.round(os.loadavg()[0]! * 100) / 100;
const perEngine: Record<string, unknown> = {};
const rows: string[][] = [];
for (const engine of engines) {
  process.stderr.write(`bench: ${engine} limits\n`);
  const limits = await measureLimits(
    engine,
    postgresUrl,
    sizes.requests,
    sizes.staticReads,
    sizes.concurrency,
  );
  process.stderr.write(`bench: ${engine} cobro\n`);
  const cobro = await measureCobro(engine, postgresUrl, sizes);
  perEngine[engine] = { limits, cobro };
  rows.push(...figureRows(engine, limits, cobro));
}
process.stderr.write('bench: scale-out on postgres\n');
const scaleOut = engines.includes('postgres')
  ? await measureScaleOut(postgresUrl, sizes.requests, sizes.concurrency)
  : null;
if (scaleOut !== null) {
  const one = scaleOut.processes1!.perSecond;
  for (const [name, r] of Object.entries(scaleOut)) {
    // Where the CPU went: with the box's cores all busy, more processes cannot add throughput.
    const cpu =
      r.cpu === null
        ? ''
        : `; CPU: box ${r.cpu.boxBusyPct}% busy, servers ${r.cpu.serversPct}%, postgres ${r.cpu.postgresPct}%, load generator ${r.cpu.loadGeneratorPct}% of a core`;
    rows.push([
      'postgres',
      `create-transaction, ${name.replace('processes', '')} process(es)`,
      `${r.perSecond}/s`,
      `p99 ${r.p99Ms} ms${cpu}`,
      `${Math.round((r.perSecond / one) * 100) / 100} × 1 process`,
      name === 'processes2' ? '≥ 1.5' : '',
    ]);
  }
}
const report = {
  startedAt: startedAt.toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  // Other work on the machine skews the numbers; the load average says how much there was.
  loadAverage1mAtStart,
  loadAverage1mAtEnd: Math.round(os.loadavg()[0]! * 100) / 100,
  sizes,
  engines: perEngine,
  scaleOut,
  table: rows,
};
fs.mkdirSync(resultsDir, { recursive: true });
const file = path.join(resultsDir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(
  `${renderTable(rows)}\nload average ${loadAverage1mAtStart} at start, ${report.loadAverage1mAtEnd} at end; written to ${path.relative(process.cwd(), file)}\n`,
);
