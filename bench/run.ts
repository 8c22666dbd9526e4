// `npm run bench`: runs every benchmark and writes one JSON file per run to bench/results/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../src/platform/clock.ts';
import { benchWalletPayouts, walletPayoutsDefaults } from './wallet-payouts.ts';

const databaseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const resultsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a positive integer`);
  return Number(raw);
}

const startedAt = systemClock.now();
const walletPayouts = await benchWalletPayouts({
  databaseUrl,
  payouts: positiveInt('BENCH_PAYOUTS', walletPayoutsDefaults.payouts),
  concurrency: positiveInt('BENCH_CONCURRENCY', walletPayoutsDefaults.concurrency),
});
// The same payouts spread over 50 wallets: no row shared between them (decision 130), so they should not queue.
const walletPayouts50 = await benchWalletPayouts({
  databaseUrl,
  payouts: positiveInt('BENCH_PAYOUTS', walletPayoutsDefaults.payouts),
  concurrency: positiveInt('BENCH_CONCURRENCY', walletPayoutsDefaults.concurrency),
  wallets: 50,
});
const report = {
  startedAt: startedAt.toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  // Other work on the machine skews the numbers; the load average says how much there was.
  loadAverage1m: Math.round(os.loadavg()[0]! * 100) / 100,
  results: [walletPayouts, walletPayouts50],
};
fs.mkdirSync(resultsDir, { recursive: true });
const file = path.join(resultsDir, `${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
process.stdout.write(`${JSON.stringify(walletPayouts)}\n${JSON.stringify(walletPayouts50)}\nwritten to ${path.relative(process.cwd(), file)}\n`);
