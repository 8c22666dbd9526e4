// Decision 986's measurement: how much the embedded database's tables grow from dead row versions under a steady
// load of payments (created, paid, their callbacks delivered, settled) and payouts, through a real `cobro serve`
// on one PGlite data directory, and what a plain VACUUM gives back. Sizes are read between rounds with the server
// stopped (PGlite has one connection). Run: node bench/embedded-bloat.ts [rounds] [paymentsPerRound]
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { openDatabase } from '../src/platform/db/database.ts';
import { runLoad } from './support/load.ts';
import { startCobro } from './support/processes.ts';
import { startReceiver } from './support/receiver.ts';
import { prepareDatabase } from './support/setup.ts';
import { payByCard, payoutBody, payoutMinor, postJson, transactionBody } from './support/client.ts';

const rounds = Number(process.argv[2] ?? 5);
const payments = Number(process.argv[3] ?? 600);
const payoutsPerRound = Math.floor(payments / 3);
const payoutWallets = 10;
const concurrency = 16;

interface Row {
  readonly relname: string;
  readonly bytes: number;
  readonly live: number;
  readonly dead: number;
}

async function sizes(dataDir: string): Promise<{ rows: Row[]; total: number }> {
  const handle = await openDatabase({ engine: 'pglite', dataDir });
  try {
    const { rows } = await sql<{ relname: string; bytes: string; live: string; dead: string }>`
      SELECT relname, pg_total_relation_size(relid) AS bytes, n_live_tup AS live, n_dead_tup AS dead
      FROM pg_stat_user_tables ORDER BY pg_total_relation_size(relid) DESC`.execute(handle.db);
    const out = rows.map((r) => ({
      relname: r.relname,
      bytes: Number(r.bytes),
      live: Number(r.live),
      dead: Number(r.dead),
    }));
    return { rows: out, total: out.reduce((s, r) => s + r.bytes, 0) };
  } finally {
    await handle.close();
  }
}

async function vacuumAll(dataDir: string): Promise<{ ms: number; perTable: [string, number][] }> {
  const handle = await openDatabase({ engine: 'pglite', dataDir });
  try {
    const { rows } = await sql<{
      relname: string;
    }>`SELECT relname FROM pg_stat_user_tables`.execute(handle.db);
    const perTable: [string, number][] = [];
    const started = performance.now();
    for (const r of rows) {
      const t0 = performance.now();
      await sql`VACUUM ${sql.id(r.relname)}`.execute(handle.db);
      perTable.push([r.relname, Math.round(performance.now() - t0)]);
    }
    return { ms: Math.round(performance.now() - started), perTable };
  } finally {
    await handle.close();
  }
}

const mb = (b: number) => (b / 1048576).toFixed(2);

const database = await prepareDatabase({
  engine: 'pglite',
  postgresUrl: '',
  accounts: 1 + payoutWallets,
  walletMinorOf: (i) => (i === 0 ? 0n : BigInt(payoutMinor * payoutsPerRound * rounds)),
});
const dataDir = database.env.DATA_DIR!;
const receiver = await startReceiver();
const history: { round: number; total: number; rows: Row[] }[] = [];
try {
  history.push({ round: 0, ...(await sizes(dataDir)) });
  let expected = 0;
  for (let round = 1; round <= rounds; round++) {
    const server = await startCobro(database.env);
    const payer = database.accounts[0]!;
    const urls: string[] = [];
    await runLoad(payments, concurrency, async (i) => {
      const res = await postJson(
        server.url,
        payer,
        '/api/transaction',
        transactionBody(i, {
          order: `r${round}-${i}`,
          urlnotify: receiver.url,
          urlreturn: 'http://127.0.0.1/return',
        }),
      );
      if (res.status !== 200) return false;
      urls[i] = String(res.body.url);
      return true;
    });
    const paid = await runLoad(payments, concurrency, (i) => payByCard(server.url, urls[i]!));
    expected += paid.ok;
    const delivered = await receiver.waitFor(expected, 120_000);
    const payouts = await runLoad(payoutsPerRound, concurrency, async (i) => {
      const res = await postJson(
        server.url,
        database.accounts[1 + (i % payoutWallets)]!,
        '/api/wallet/payout',
        payoutBody(round * 100_000 + i),
      );
      return res.status === 200 && res.body?.status === 'success';
    });
    const advanced = await postJson(server.url, payer, '/api/sandbox/clock/advance', { days: 3 });
    // The settlement callbacks too, if any.
    await new Promise((r) => setTimeout(r, 3000));
    await server.stop();
    if (process.env.VACUUM_BETWEEN !== undefined) {
      const v = await vacuumAll(dataDir);
      process.stdout.write(`round ${round}: VACUUM of every table ${v.ms} ms\n`);
    }
    const now = await sizes(dataDir);
    history.push({ round, ...now });
    process.stdout.write(
      `round ${round}: paid ${paid.ok}/${payments}, callbacks ${receiver.received()} (${delivered === null ? 'timeout' : 'ok'}), payouts ${payouts.ok}/${payoutsPerRound}, advance ${advanced.status} ${JSON.stringify(advanced.body?.processed ?? {})}; tables ${mb(now.total)} MB\n`,
    );
  }
  // KEEP_DATA_DIR with ROUNDS_ONLY: the directory as the load left it, never vacuumed (for EXPLAIN before and after).
  if (process.env.ROUNDS_ONLY !== undefined) {
    process.stdout.write(`kept ${JSON.stringify(database.env)}\n`);
    process.exit(0);
  }
  const vacuum = await vacuumAll(dataDir);
  const after = await sizes(dataDir);
  const last = history.at(-1)!;
  process.stdout.write(
    `\nVACUUM of every table: ${vacuum.ms} ms; slowest ${JSON.stringify(vacuum.perTable.sort((a, b) => b[1] - a[1]).slice(0, 6))}\n`,
  );
  process.stdout.write(`total ${mb(last.total)} MB before, ${mb(after.total)} MB after\n\n`);
  process.stdout.write(
    'table | ' +
      history.map((h) => `r${h.round} MB`).join(' | ') +
      ' | live | dead | after VACUUM MB | ratio\n',
  );
  for (const r of last.rows.slice(0, 25)) {
    const a = after.rows.find((x) => x.relname === r.relname)!;
    const per = history.map((h) => mb(h.rows.find((x) => x.relname === r.relname)?.bytes ?? 0));
    process.stdout.write(
      `${r.relname} | ${per.join(' | ')} | ${r.live} | ${r.dead} | ${mb(a.bytes)} | ${(r.bytes / a.bytes).toFixed(2)}\n`,
    );
  }
  // The compact size: VACUUM FULL rewrites each table and its indexes with the live rows only.
  const full = await openDatabase({ engine: 'pglite', dataDir });
  try {
    await sql`VACUUM FULL`.execute(full.db);
  } finally {
    await full.close();
  }
  const compact = await sizes(dataDir);
  process.stdout.write(
    `\nafter VACUUM FULL: ${mb(compact.total)} MB; ratio of the last round's size to it, per table:\n`,
  );
  for (const r of last.rows.slice(0, 25)) {
    const c = compact.rows.find((x) => x.relname === r.relname)!;
    process.stdout.write(
      `${r.relname} | ${mb(r.bytes)} | ${mb(c.bytes)} | ${(r.bytes / c.bytes).toFixed(2)}\n`,
    );
  }
} finally {
  await receiver.close();
  if (process.env.KEEP_DATA_DIR === undefined) await database.drop();
  else process.stdout.write(`kept ${dataDir}\n`);
}
