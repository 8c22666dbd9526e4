// A late Fintoc success killed between its claim and its record, and never delivered again (decision 1215): a real
// production `cobro serve` on PostgreSQL takes Fintoc's `payment_intent.succeeded` for an intent it had declined; the
// test holds payment_attempts so the record waits after the claim committed, and kills the server with SIGKILL, as
// kill-fintoc-late-success.test.ts does. Fintoc then sends nothing more. The 10-minute lease of the dead attempt is
// moved into the past in the database (the service clock of a real server cannot be advanced), the server restarted,
// and its own `fintoc-late-claim-recover` due work, reading the payment intent from the simulator, pays the sale:
// once, no "refund it by hand", reconcile matching the movement, the ledger clean. Before, the sale stayed pending.
// PostgreSQL only: the hold on the table is another connection's, which PGlite's one process does not have.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { computeSign } from '../../src/platform/auth/sign.ts';
import { startServe, type ServeProcess } from '../support/cli.ts';
import { startFintocSimulator, type FintocSimulator } from '../support/fintoc-simulator.ts';
import { linkParams } from '../modules/transactions/helpers.ts';
import { transactionLimits } from '../../src/limits/index.ts';
import { serveOn, suiteEngine, type Engine } from './engines.ts';
import { operatorOn } from './races.ts';
import { sigkill } from './load.ts';

/** How many times the test looks for the server's record waiting on the held table before it gives up. */
const waitLooksMax = 600;
/** How many times the test looks for the restarted server's due work to pay the sale (each 100 ms apart). */
const paidLooksMax = 600;

async function postJson(url: string, body: string, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, text: await res.text() };
}

async function scenario(engine: Engine, sim: FintocSimulator): Promise<void> {
  const { env, baseUrl } = await serveOn(engine, {
    COBRO_MODE: 'production',
    COBRO_SECRET_KEY: 'a9'.repeat(32),
    COBRO_ALLOW_INSECURE_PUBLIC_URL: '1',
  });
  const operator = await operatorOn(engine, env);
  const data = await engine.open();
  let server: ServeProcess | null = null;
  try {
    const made = await operator.run(['accounts', 'create', '--name', 'Tienda Rescate', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const shop = JSON.parse(made.stdout) as {
      id: string;
      public_token: string;
      private_token: string;
    };
    const set = await operator.run([
      'accounts',
      'set-processor',
      shop.id,
      '--fintoc-secret-key',
      sim.secretKey,
      '--fintoc-webhook-secret',
      sim.webhookSecret,
      '--fintoc-account',
      'acc_sim1',
      '--environment',
      sim.url,
    ]);
    expect(set.code, set.stderr).toBe(0);
    server = await startServe(env);

    // A bank-transfer sale sent to Fintoc's page and paid there; Fintoc first reports its intent failed.
    const body = {
      email: 'payer@example.com',
      order: 'rescate-1',
      subject: 'Compra',
      amount: 8000,
      payment: 19,
      additional_parameters: { payer_rut: '11.111.111-1' },
    };
    const created = await postJson(`${baseUrl}/api/transaction/`, JSON.stringify(body), {
      authorization: `Bearer ${shop.public_token}`,
      sign: computeSign(shop.private_token, '/api/transaction/', body),
    });
    expect(created.status, created.text).toBe(200);
    const sale = JSON.parse(created.text) as { id: string; url: string };
    const page = await fetch(`${baseUrl}/gateway/cobro`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...linkParams(sale.url), method: '19' }).toString(),
    });
    const link = /href="([^"]+)" data-testid="continue-fintoc"/.exec(await page.text());
    expect(link).not.toBeNull();
    const session = link![1]!.split('/').pop()!;
    expect((await fetch(`${sim.url}/pay/${session}/paid`, { redirect: 'manual' })).status).toBe(
      303,
    );
    const s = sim.sessions.get(session)!;
    const paid = (s.payment_resource as { payment_intent: Record<string, unknown> }).payment_intent;
    const intent = { ...paid, metadata: s.metadata };
    const webhookUrl = `${baseUrl}/webhooks/fintoc/${shop.id}`;
    const deliver = (ev: { body: string; signature: string }) =>
      postJson(webhookUrl, ev.body, { 'fintoc-signature': ev.signature });
    const failed = await deliver(
      sim.signedEvent('payment_intent.failed', { ...intent, status: 'failed' }),
    );
    expect(JSON.parse(failed.text).result).toBe('declined');

    // The late success: its claim commits, its record waits on the held table; the server is killed there.
    const succeeded = sim.signedEvent('payment_intent.succeeded', {
      ...intent,
      status: 'succeeded',
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const hold = data.db.transaction().execute(async (trx) => {
      await sql`LOCK TABLE payment_attempts IN EXCLUSIVE MODE`.execute(trx);
      holding();
      await released;
    });
    await held;
    const cut = deliver(succeeded).catch(() => null);
    let waiting = false;
    for (let look = 0; look < waitLooksMax && !waiting; look++) {
      const row = await data.db
        .selectFrom('transactions')
        .select('attempt_id')
        .where('id', '=', sale.id)
        .executeTakeFirstOrThrow();
      const blocked = await sql<{ n: string }>`SELECT COUNT(*)::text AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(data.db);
      waiting = row.attempt_id !== null && blocked.rows[0]!.n !== '0';
      if (!waiting) await new Promise((r) => setTimeout(r, 50));
    }
    expect(waiting, 'the late success claimed the sale and waits to record it').toBe(true);
    await sigkill(server);
    server = null;
    release();
    await hold;
    expect(await cut).toBeNull();
    const between = await data.db
      .selectFrom('transactions')
      .select(['status', 'attempt_id'])
      .where('id', '=', sale.id)
      .executeTakeFirstOrThrow();
    expect(between.status).toBe('pending');
    expect(between.attempt_id).not.toBeNull();

    // Fintoc delivers nothing more. The dead attempt's lease runs out (moved back, as the service clock would move),
    // and the restarted server's due work finds the sale, reads the intent at Fintoc and pays it.
    const backMs = transactionLimits.acquirer.redirectLeaseMs + 1000;
    await sql`UPDATE transactions SET attempt_lease_until = attempt_lease_until - ${`${backMs} milliseconds`}::interval
      WHERE id = ${sale.id}`.execute(data.db);
    await sql`UPDATE processor_sessions SET updated_at = updated_at - ${`${backMs} milliseconds`}::interval
      WHERE transaction_id = ${sale.id}`.execute(data.db);
    // serveOn starts servers without workers; this one runs its due work, as a production `cobro serve` does.
    server = await startServe({ ...env, COBRO_WORKERS: '1' });
    let status = 'pending';
    for (let look = 0; look < paidLooksMax && status === 'pending'; look++) {
      await new Promise((r) => setTimeout(r, 100));
      const row = await data.db
        .selectFrom('transactions')
        .select('status')
        .where('id', '=', sale.id)
        .executeTakeFirstOrThrow();
      status = row.status;
    }
    expect(status, server.output()).toBe('success');
    expect(sim.calls).toContain(`GET /v1/payment_intents/${String(paid.id)}`);
    expect(server.output()).not.toContain('refund it by hand');
    const attempts = await data.db
      .selectFrom('payment_attempts')
      .select('outcome')
      .where('transaction_id', '=', sale.id)
      .orderBy('number')
      .execute();
    expect(attempts.map((a) => a.outcome)).toEqual(['declined', 'approved']);
    const captures = await data.db
      .selectFrom('journal_entries')
      .select('id')
      .where('reference', '=', sale.id)
      .where('kind', '=', 'transaction.capture')
      .execute();
    expect(captures).toHaveLength(1);
    const reconcile = await operator.run(['fintoc', 'reconcile', '--account', shop.id, '--json']);
    expect(reconcile.stderr).toBe('');
    expect(JSON.parse(reconcile.stdout).findings).toEqual([]);
    const verify = await operator.run(['ledger', 'verify']);
    expect(verify.code, verify.stderr + verify.stdout).toBe(0);
  } finally {
    if (server !== null) await server.stop();
    await operator.close();
    await data.close();
  }
}

describe.skipIf(process.env.DATABASE_URL === undefined)(
  'kill -9 between a late Fintoc success claim and its record, no redelivery',
  () => {
    it('the due work of the restarted server pays the sale from the payment intent at Fintoc', {
      timeout: 120_000,
    }, async () => {
      const engine = await suiteEngine();
      const sim = await startFintocSimulator();
      try {
        await scenario(engine, sim);
      } finally {
        await sim.close();
        await engine.dispose();
      }
    });
  },
);
