// Decision 710: `cobro disputes import` across a power cut. The operator records the acquirer's chargeback report, a
// CSV whose rows each commit alone (docs/disputes.md). The process doing the work is killed with SIGKILL half-way
// through the file (on PGlite the serving process the CLI works through, on PostgreSQL the CLI itself). The operator
// runs the same file again. Each chargeback the acquirer reported must then be held once: a row that committed before
// the kill must not open a second dispute holding the same money from the merchant's wallet again.
// Failed before decision 710: a line had no identity, so the second run opened every committed row again (the
// reviewer's run, 160 sales: on PGlite 46 of 960 rows committed before the kill, and eight sales then held 10 or 12
// disputes instead of 6), and the killed run printed nothing, its per-line results being written only at the end of
// the file. Now each opening line is keyed by the file's hash and its number: the second run answers "already opened
// dsp..." for exactly the lines that committed, and the killed run printed each line as it committed. 120 sales
// (720 rows) keep the kill part-way on PGlite in less time than 160 did.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, cobroBin, repoRoot, runCli, startServe } from '../support/cli.ts';
import { serveOn, suiteEngine, type Engine } from './engines.ts';
import { call, demoCredentials, payCheckout, sigkill, sleep, type Credentials } from './load.ts';

const salesPlanned = 120;
const disputeMinor = 100;
/** Chargebacks the report holds on each sale (distinct reasons: distinct chargebacks). */
const perSaleRows = 6;
const saleMinor = 20_000;

async function paidSale(baseUrl: string, who: Credentials, order: string): Promise<string> {
  const created = await call(baseUrl, who, 'POST', '/api/transaction', {
    email: 'payer@example.com',
    order,
    subject: 'dispute import kill',
    amount: saleMinor,
  });
  expect(created.status, created.text).toBe(200);
  const u = new URL(String(created.json.url));
  const page = await payCheckout(baseUrl, {
    id: u.searchParams.get('id')!,
    valid: u.searchParams.get('valid')!,
  });
  expect(page).toContain('Pago exitoso');
  return String(created.json.id);
}

async function disputesTotal(baseUrl: string, who: Credentials): Promise<number | null> {
  try {
    const res = await call(baseUrl, who, 'GET', '/api/disputes?page=1&per_page=1');
    return res.status === 200 ? Number(res.json.total) : null;
  } catch {
    return null;
  }
}

async function scenario(engine: Engine): Promise<void> {
  const { env, baseUrl } = await serveOn(engine);
  let server = await startServe(env);
  const who = demoCredentials(server.output());
  const sales: string[] = Array.from({ length: salesPlanned }, () => '');
  let next = 0;
  await Promise.all(
    Array.from({ length: 12 }, async () => {
      while (next < salesPlanned) {
        const i = next++;
        sales[i] = await paidSale(baseUrl, who, `dik-${i}`);
      }
    }),
  );
  // Funds for every hold, so each dispute is held from the wallet.
  const funded = await call(baseUrl, who, 'POST', '/api/sandbox/wallet/credit', {
    amount: salesPlanned * perSaleRows * disputeMinor * 2,
    currency: 'CLP',
    reason: 'dispute import kill',
  });
  expect(funded.status).toBe(200);

  // The acquirer's report: one chargeback per sale.
  const csv = path.join(engine.dataDir, 'contracargos.csv');
  fs.writeFileSync(
    csv,
    `transaction_id,amount,reason\n${sales
      .flatMap((id) =>
        Array.from({ length: perSaleRows }, (_, k) => `${id},${disputeMinor},fraude ${k}`),
      )
      .join('\n')}\n`,
  );

  const cli = spawn(cobroBin, ['disputes', 'import', csv], {
    cwd: repoRoot,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let cliOut = '';
  cli.stdout.on('data', (c: Buffer) => {
    cliOut += c.toString();
  });
  cli.stderr.on('data', (c: Buffer) => {
    cliOut += c.toString();
  });
  const cliDone = new Promise<number | null>((resolve) => cli.on('close', (code) => resolve(code)));
  // Killed while the rows commit: on PGlite once the import has printed its first committed line (the serving process
  // runs it and answers nothing else meanwhile; a fixed delay found nothing committed yet on a loaded machine).
  const spawnedAt = Date.now();
  if (engine.name === 'pglite') {
    for (let i = 0; i < 15_000 && !/ opened\n/.test(cliOut); i++) await sleep(2);
    await sleep(300); // a few dozen more rows, so the kill lands among them
  } else {
    let seen = 0;
    for (let i = 0; i < 4_000 && seen < 1; i++) {
      seen = (await disputesTotal(baseUrl, who)) ?? seen;
      if (seen < 1) await sleep(2);
    }
  }
  process.stdout.write(`killed ${Date.now() - spawnedAt} ms after the import started\n`);
  if (engine.name === 'pglite') await sigkill(server);
  else cli.kill('SIGKILL');
  const code = await cliDone;
  expect(code, `the import was to be cut short:\n${cliOut}`).not.toBe(0);
  if (engine.name === 'pglite') server = await startServe(env);

  try {
    const before = (await disputesTotal(baseUrl, who))!;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(salesPlanned * perSaleRows);
    // The operator runs the same report again.
    const again = await runCli(['disputes', 'import', csv], env);
    process.stdout.write(
      `kill-dispute-import (${engine.name}): ${before} of ${salesPlanned * perSaleRows} rows committed before the kill, ${(cliOut.match(/ opened\n/g) ?? []).length} printed; second run exit ${again.code}\n`,
    );
    // Each line the killed run printed had committed, and the second run found it; it opened only the rest.
    const printed = [...cliOut.matchAll(/^line (\d+): dsp\w+ opened$/gm)].map((m) => m[1]);
    const already = new Set(
      [...again.stdout.matchAll(/^line (\d+): already opened dsp\w+$/gm)].map((m) => m[1]),
    );
    expect(printed.filter((line) => !already.has(line))).toEqual([]);
    // The serving process the CLI works through sent each line as it committed (all but one in flight at the kill).
    if (engine.name === 'pglite') expect(printed.length).toBeGreaterThanOrEqual(before - 1);
    expect(already.size).toBe(before);
    expect(again.stdout).toContain(
      `${salesPlanned * perSaleRows - before} recorded, ${before} already opened, 0 refused`,
    );
    const perSale = new Map<string, number>();
    for (let page = 1; ; page++) {
      const got = await call(baseUrl, who, 'GET', `/api/disputes?page=${page}&per_page=100`);
      const list = got.json.disputes as Array<{ transaction_id: string }>;
      for (const d of list) perSale.set(d.transaction_id, (perSale.get(d.transaction_id) ?? 0) + 1);
      if (list.length < 100) break;
    }
    // Each reported chargeback held once: as many disputes on each sale as the report has rows for it.
    expect(
      sales.filter((id) => perSale.get(id) !== perSaleRows).map((id) => [id, perSale.get(id) ?? 0]),
      'sales whose reported chargeback is held more than once (or not at all)',
    ).toEqual([]);
    const wallet = await call(baseUrl, who, 'GET', '/api/wallet?currency=CLP');
    expect(wallet.json.amount_available).toBe(salesPlanned * perSaleRows * disputeMinor);
  } finally {
    await server.stop();
  }
}

describe('kill -9 half-way through cobro disputes import, run the same file again', () => {
  it('holds each reported chargeback once', { timeout: 120_000 }, async () => {
    const engine = await suiteEngine();
    try {
      await scenario(engine);
    } finally {
      await engine.dispose();
    }
  });
});
