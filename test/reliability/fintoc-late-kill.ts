// A late Fintoc success killed between its claim and its record, as kill-fintoc-late-success.test.ts (decision 1080)
// and kill-fintoc-late-claim-recover.test.ts (decision 1215) both need it: a real production `cobro serve` takes
// Fintoc's `payment_intent.succeeded` for an intent it had declined; the harness holds payment_attempts so the record
// (its first write there) waits after the claim committed, and kills the server with SIGKILL. Each test then finishes
// the sale its own way, and the harness checks it was paid once. PostgreSQL only: the hold on the table is another
// connection's, which PGlite's one process does not have.
import { sql } from 'kysely';
import { expect } from 'vitest';
import { computeSign } from '../../src/platform/auth/sign.ts';
import type { Db } from '../../src/platform/db/types.ts';
import { startServe, type ServeProcess } from '../support/cli.ts';
import type { FintocSimulator } from '../support/fintoc-simulator.ts';
import { linkParams } from '../modules/transactions/helpers.ts';
import { serveOn, type Engine } from './engines.ts';
import { operatorOn } from './races.ts';
import { sigkill } from './load.ts';

/** How many times the harness looks for the server's record waiting on the held table before it gives up. */
const waitLooksMax = 600;

async function postJson(url: string, body: string, headers: Record<string, string>) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: res.status, text: await res.text() };
}

/** What the kill left: the sale pending, held by the dead late attempt. */
export interface KilledLateClaim {
  readonly env: Record<string, string>;
  readonly data: { readonly db: Db };
  readonly sale: { readonly id: string };
  /** The payment intent Fintoc confirmed late. */
  readonly intentId: string;
  /** Delivers the late `payment_intent.succeeded` again, as Fintoc does when it got no answer. */
  redeliver(): Promise<{ status: number; text: string }>;
}

/**
 * Kills a production `cobro serve` between a late Fintoc success's claim and its record, hands the aftermath to
 * `finish` (which restarts the server its own way and returns it), then checks the sale was paid once: no "refund it
 * by hand", attempts declined then approved, one capture, reconcile with no finding, the ledger clean.
 */
export async function killedLateClaim(
  engine: Engine,
  sim: FintocSimulator,
  names: { readonly account: string; readonly order: string },
  finish: (killed: KilledLateClaim) => Promise<ServeProcess>,
): Promise<void> {
  const { env, baseUrl } = await serveOn(engine, {
    COBRO_MODE: 'production',
    COBRO_SECRET_KEY: 'a9'.repeat(32),
    COBRO_ALLOW_INSECURE_PUBLIC_URL: '1',
  });
  const operator = await operatorOn(engine, env);
  const data = await engine.open();
  let server: ServeProcess | null = null;
  try {
    const made = await operator.run(['accounts', 'create', '--name', names.account, '--json']);
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
      order: names.order,
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

    server = await finish({
      env,
      data,
      sale,
      intentId: String(paid.id),
      redeliver: () => deliver(succeeded),
    });
    const after = await data.db
      .selectFrom('transactions')
      .select('status')
      .where('id', '=', sale.id)
      .executeTakeFirstOrThrow();
    expect(after.status, server.output()).toBe('success');
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
