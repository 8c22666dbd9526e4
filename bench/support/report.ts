// Turns one engine's measurements into table rows: the figure, its latency, its ratio to the limit measured in
// the same run, and the target issue 13 sets for that ratio.
import type { CobroFigures } from '../scenarios/cobro.ts';
import type { Limits } from '../scenarios/limits.ts';
import type { MeasuredLoad } from './load.ts';

const round2 = (n: number) => Math.round(n * 100) / 100;

/** The serving process's CPU per request, and PostgreSQL's when it is a separate process. */
function cpuText(r: MeasuredLoad): string {
  if (r.cpu === null) return '';
  return `; CPU a request: server ${r.cpu.serverUs} µs${r.cpu.postgresUs > 0 ? `, PostgreSQL ${r.cpu.postgresUs} µs` : ''}`;
}

function ratioRow(
  engine: string,
  name: string,
  r: MeasuredLoad,
  limit: MeasuredLoad,
  limitName: string,
  target: string,
): string[] {
  return [
    engine,
    name,
    `${r.perSecond}/s (${r.ok}/${r.requests} ok)`,
    `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms${cpuText(r)}`,
    `${round2(r.perSecond / limit.perSecond)} × ${limitName}; p99 ${round2(r.p99Ms / Math.max(0.01, limit.p99Ms))} ×`,
    target,
  ];
}

export function figureRows(engine: string, limits: Limits, cobro: CobroFigures): string[][] {
  const createTarget = engine === 'postgres' ? '≥ 0.6, p99 ≤ 2 ×' : '≥ 0.8';
  return [
    [
      engine,
      'limit: Fastify doing nothing',
      `${limits.noop.perSecond}/s`,
      `p50 ${limits.noop.p50Ms} ms, p99 ${limits.noop.p99Ms} ms${cpuText(limits.noop)}`,
      '1',
      '',
    ],
    [
      engine,
      'limit: Fastify + one INSERT',
      `${limits.insert.perSecond}/s`,
      `p50 ${limits.insert.p50Ms} ms, p99 ${limits.insert.p99Ms} ms${cpuText(limits.insert)}`,
      '1',
      '',
    ],
    ratioRow(
      engine,
      'POST /api/transaction',
      cobro.createTransaction,
      limits.insert,
      'INSERT',
      createTarget,
    ),
    ratioRow(
      engine,
      'POST /api/wallet/payout, one hot wallet',
      cobro.hotWalletPayouts,
      limits.insert,
      'INSERT',
      '≥ 0.25',
    ),
    [
      engine,
      '  hot wallet: accepted vs funded for',
      `${cobro.hotWalletPayouts.ok} / ${cobro.hotWalletPayouts.fundedFor}`,
      '',
      cobro.hotWalletPayouts.overdraft ? 'OVERDRAFT' : 'no overdraft',
      '0 overdraft',
    ],
    ratioRow(
      engine,
      'POST /api/wallet/payout, 50 wallets',
      cobro.payouts50Wallets,
      limits.insert,
      'INSERT',
      '≥ 0.4',
    ),
    ratioRow(
      engine,
      'payment success (checkout form)',
      cobro.paymentSuccess,
      limits.insert,
      'INSERT',
      '',
    ),
    ratioRow(engine, 'GET /api/wallet', cobro.getWallet, limits.noop, 'noop', ''),
    ratioRow(engine, 'GET /api/banks', cobro.getBanks, limits.noop, 'noop', '≥ 0.7'),
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
      `${cobro.settlement.perSecond}/s`,
      `${cobro.settlement.settled} in ${cobro.settlement.ms} ms`,
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
      `${cobro.killRestartMs} ms`,
      '',
      '',
      'a few seconds',
    ],
    [
      engine,
      'peak RSS of cobro serve under load',
      `${cobro.peakRssMb ?? 'n/a'} MB`,
      '',
      '',
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
