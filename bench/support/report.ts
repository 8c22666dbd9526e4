// Turns one engine's measurements into table rows: the figure, its latency, its ratios to the limits measured in
// the same run (a write against both the single INSERT and the batching limit), and the target set for it.
import type { CobroFigures } from '../scenarios/cobro.ts';
import type { Limits } from '../scenarios/limits.ts';
import type { MeasuredLoad } from './load.ts';

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The serving process's CPU per request, and PostgreSQL's when it is a separate process. */
function cpuText(r: MeasuredLoad): string {
  if (r.cpu === null) return '';
  return `; CPU a request: server ${r.cpu.serverUs} µs${r.cpu.postgresUs > 0 ? `, PostgreSQL ${r.cpu.postgresUs} µs` : ''}`;
}

/** A figure against one limit: its rate and its p99 as multiples of the limit's. */
function ratioTo(r: MeasuredLoad, limit: MeasuredLoad, limitName: string): string {
  return `${round2(r.perSecond / limit.perSecond)} × ${limitName} (p99 ${round2(r.p99Ms / Math.max(0.01, limit.p99Ms))} ×)`;
}

/**
 * A write's row: its ratio to both write limits, the single INSERT and the batching one, so every write can be read
 * against the limit of a server that batches (as Cobro's creates and payouts do) and of one that does not.
 */
function writeRow(
  engine: string,
  name: string,
  r: MeasuredLoad,
  limits: Limits,
  target: string,
): string[] {
  return [
    engine,
    name,
    `${r.perSecond}/s (${r.ok}/${r.requests} ok)`,
    `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms${cpuText(r)}`,
    `${ratioTo(r, limits.insert, 'INSERT')}; ${ratioTo(r, limits.batchedInsert, 'batched')}`,
    target,
  ];
}

/** A read's row: against Fastify doing nothing, and (`withInsert`, a read that queries) the single INSERT too. */
function readRow(
  engine: string,
  name: string,
  r: MeasuredLoad,
  limits: Limits,
  withInsert: boolean,
  target: string,
): string[] {
  const ratios = [ratioTo(r, limits.noop, 'noop')];
  if (withInsert) ratios.push(ratioTo(r, limits.insert, 'INSERT'));
  return [
    engine,
    name,
    `${r.perSecond}/s (${r.ok}/${r.requests} ok)`,
    `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms${cpuText(r)}`,
    ratios.join('; '),
    target,
  ];
}

function limitRow(engine: string, name: string, r: MeasuredLoad): string[] {
  return [
    engine,
    `limit: ${name}`,
    `${r.perSecond}/s`,
    `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms${cpuText(r)}`,
    '1',
    '',
  ];
}

export function figureRows(engine: string, limits: Limits, cobro: CobroFigures): string[][] {
  const settledPerSecond = cobro.settlement.perSecond;
  return [
    limitRow(engine, 'Fastify doing nothing', limits.noop),
    limitRow(engine, 'Fastify + one INSERT', limits.insert),
    limitRow(engine, 'Fastify + group-committed INSERTs (batched)', limits.batchedInsert),
    writeRow(engine, 'POST /api/transaction', cobro.createTransaction, limits, '≥ 0.8 × batched'),
    writeRow(
      engine,
      'POST /api/wallet/payout, one hot wallet',
      cobro.hotWalletPayouts,
      limits,
      '≥ 0.25 × INSERT',
    ),
    [
      engine,
      '  hot wallet: accepted vs funded for',
      `${cobro.hotWalletPayouts.ok} / ${cobro.hotWalletPayouts.fundedFor}`,
      '',
      cobro.hotWalletPayouts.overdraft ? 'OVERDRAFT' : 'no overdraft',
      '0 overdraft',
    ],
    writeRow(
      engine,
      'POST /api/wallet/payout, 50 wallets',
      cobro.payouts50Wallets,
      limits,
      '≥ 0.4 × INSERT',
    ),
    writeRow(
      engine,
      'payment success (checkout form)',
      cobro.paymentSuccess,
      limits,
      '≥ 0.3 × INSERT',
    ),
    readRow(engine, 'GET /api/wallet', cobro.getWallet, limits, true, '≥ 0.5 × noop'),
    readRow(engine, 'GET /api/wallet, 50 wallets', cobro.getWallet50, limits, true, ''),
    readRow(engine, 'GET /api/banks', cobro.getBanks, limits, false, '≥ 0.7 × noop'),
    [
      engine,
      'callback deliveries (signed, local receiver)',
      `${cobro.callbacks.perSecond ?? 'timed out'}/s`,
      `${cobro.callbacks.delivered} delivered`,
      '',
      '≥ 2000/s',
    ],
    [
      engine,
      'settlement (one sandbox clock advance)',
      `${settledPerSecond}/s`,
      `${cobro.settlement.settled} in ${cobro.settlement.ms} ms`,
      `${round2(settledPerSecond / limits.insert.perSecond)} × INSERT; ${round2(settledPerSecond / limits.batchedInsert.perSecond)} × batched`,
      '≥ 2000/s',
    ],
    [
      engine,
      "  the warm-up: a fresh server's first advance",
      `${cobro.settlementFirst.perSecond}/s`,
      `${cobro.settlementFirst.settled} in ${cobro.settlementFirst.ms} ms`,
      '',
      '',
    ],
    [
      engine,
      'cold start (spawn to /readyz 200)',
      `${cobro.coldStartMs} ms`,
      `warm restart ${cobro.warmStartMs} ms`,
      '',
      '≤ 2000 ms',
    ],
    [
      engine,
      'restart after kill -9 under load (spawn to /readyz 200)',
      cobro.killRestartMs === null ? 'NOT READY' : `${cobro.killRestartMs} ms`,
      '',
      '',
      'a few seconds',
    ],
    [
      engine,
      'peak RSS of cobro serve under load',
      `${cobro.peakRssMb ?? 'n/a'} MB`,
      '',
      `limit server ${limits.peakRssMb ?? 'n/a'} MB`,
      engine === 'postgres' ? '≤ 200 MB' : '≤ 256 MB',
    ],
    [
      engine,
      'cobro ledger verify after the run',
      cobro.ledgerClean ? 'clean' : 'FAULT',
      '',
      '',
      'clean',
    ],
  ];
}

export function renderTable(rows: readonly (readonly string[])[]): string {
  const header = ['engine', 'figure', 'measured', 'latency', 'ratio to limit (same run)', 'target'];
  const all = [header, ...rows];
  const widths = header.map((_, col) => Math.max(...all.map((r) => (r[col] ?? '').length)));
  return all.map((r) => r.map((cell, col) => cell.padEnd(widths[col]!)).join(' | ')).join('\n');
}
