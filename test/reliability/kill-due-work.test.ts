// The money paths the other kill tests leave out, across power cuts: a real `cobro serve` drains due work (plain,
// marketplace, event and escrow settlements; marketplace client deposits; event beneficiary payouts; recurring
// subscription billing; refund collection from later settlements) inside sandbox clock advances, while chargebacks
// are opened and resolved, escrow sales released, refunds and payouts taken. Each phase's requests are fired at
// once, the server is killed with SIGKILL at a random moment, restarted on the same data, and every request that got
// no answer is sent again with its Idempotency-Key (as a client would) until it has one. At the end: the ledger is
// clean, every effect exists exactly once (one settlement per sale, one deposit per share, one payout per
// beneficiary, one journal per dispute step, one release per held sale, one payment per billing cycle) and each
// merchant's money equals what the acknowledged operations imply.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { computeSign, queryParams } from '../../src/platform/auth/sign.ts';
import { startServe, type ServeProcess } from '../support/cli.ts';
import { serveOn, suiteEngine, type Engine } from './engines.ts';
import { operatorOn } from './races.ts';
import {
  cardExpiry,
  demoCredentials,
  killer,
  postForm,
  resendUntilAnswered,
  sigkill,
  type Credentials,
} from './load.ts';

const leaseMs = 1_000;
const killSpread = Number(process.env.KILL_SPREAD ?? 3);
const card = { card_number: '4051 8856 0044 6623', expiry: cardExpiry, cvv: '123' };

interface Reply {
  readonly replayed: boolean;
  readonly status: number;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

/** One signed request; null when the connection broke or no server was there. */
async function api(
  baseUrl: string,
  who: Credentials,
  method: 'GET' | 'POST',
  path: string,
  body?: Record<string, unknown>,
  key?: string,
): Promise<Reply | null> {
  const [pathOnly, query] = path.split('?') as [string, string | undefined];
  const params = body ?? queryParams(query ?? '');
  try {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${who.publicToken}`,
        sign: computeSign(who.privateToken, pathOnly, params),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      /* not JSON */
    }
    return {
      status: res.status,
      text,
      json,
      replayed: res.headers.get('idempotent-replayed') === 'true',
    };
  } catch {
    return null;
  }
}

/** A request outside the killed phases: must answer 200. */
async function must(
  baseUrl: string,
  who: Credentials,
  method: 'GET' | 'POST',
  path: string,
  body?: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const r = await api(baseUrl, who, method, path, body);
  if (r === null || r.status !== 200) throw new Error(`${method} ${path}: ${r?.status} ${r?.text}`);
  return r.json;
}

async function paidSale(
  baseUrl: string,
  who: Credentials,
  order: string,
  amount: number,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const created = await must(baseUrl, who, 'POST', '/api/transaction', {
    email: 'payer@example.com',
    order,
    subject: 'due work kill',
    amount,
    ...extra,
  });
  const u = new URL(String(created.url));
  const page = await postForm(baseUrl, '/gateway/cobro', {
    id: u.searchParams.get('id')!,
    valid: u.searchParams.get('valid')!,
    method: '1',
    ...card,
  });
  if (!page.text.includes('Pago exitoso')) throw new Error(`sale ${order} not paid`);
  return String(created.id);
}

function santiagoDate(offsetDays: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago' }).format(
    new Date(Date.now() + offsetDays * 86_400_000),
  );
}

interface Keyed {
  readonly label: string;
  readonly who: Credentials;
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly key: string;
}

class Harness {
  server!: ServeProcess;
  kills = 0;
  answeredBeforeKill = 0;
  readonly log: string[] = [];
  readonly env: Record<string, string>;
  readonly baseUrl: string;
  constructor(env: Record<string, string>, baseUrl: string) {
    this.env = env;
    this.baseUrl = baseUrl;
  }

  /**
   * Fires every request at once (at most `lanes` waiting), kills the server after `killAfterMs`, restarts it and
   * sends each unanswered request again with its key until it has an answer that is neither 409 nor 5xx.
   */
  async phase(requests: readonly Keyed[], killAfterMs: number, lanes = 16) {
    const answers = new Map<string, Reply>();
    const sendOne = async (r: Keyed) => {
      const got = await api(this.baseUrl, r.who, 'POST', r.path, r.body, r.key);
      const answered = got !== null && got.status !== 409 && got.status < 500;
      if (answered) answers.set(r.key, got);
      return answered;
    };
    let next = 0;
    const kill = killer(this.server);
    const timer = setTimeout(() => void kill(), killAfterMs);
    const lane = async () => {
      while (next < requests.length) await sendOne(requests[next++]!);
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    this.answeredBeforeKill += answers.size;
    this.log.push(`${answers.size}/${requests.length}@${killAfterMs}ms`);
    // Killed after the last answer if the phase ran faster than the timer: the next restart then finds its data.
    clearTimeout(timer);
    await kill();
    this.kills++;
    this.server = await startServe(this.env);
    // Now and then killed again while the retries run (a resumed after-commit step, a second claim of a key).
    let restarting: Promise<void> = Promise.resolve();
    const again = setTimeout(
      () => {
        const dying = this.server;
        restarting = (async () => {
          await sigkill(dying);
          this.kills++;
          this.log.push('+retry-kill');
          this.server = await startServe(this.env);
        })();
      },
      Math.random() < 0.5 ? 50 + Math.floor(Math.random() * 600) : 600_000,
    );
    const unanswered = requests.filter((r) => !answers.has(r.key));
    const never = await resendUntilAnswered(unanswered, 80, 250, sendOne);
    clearTimeout(again);
    await restarting;
    const missing = never.map((r) => r.label);
    expect(missing, 'requests never answered').toEqual([]);
    // Every answer, given before a kill or after, is replayed byte for byte.
    for (const r of requests) {
      const replay = await api(this.baseUrl, r.who, 'POST', r.path, r.body, r.key);
      const first = answers.get(r.key)!;
      expect(replay?.replayed, `${r.label}: ${replay?.text}`).toBe(true);
      expect(replay?.text, r.label).toBe(first.text);
    }
    return answers;
  }
}

async function scenario(engine: Engine): Promise<void> {
  // Claims a kill leaves (a refund's dispatch, a billing attempt) hold for ATTEMPT_LEASE_MS of real time: leases
  // are on the service clock, so the sandbox clock advances below never free them (decision 785).
  const { env, baseUrl } = await serveOn(engine, {
    IDEMPOTENCY_LEASE_MS: String(leaseMs),
    ATTEMPT_LEASE_MS: String(leaseMs),
  });
  // Operator commands without a process of their own (races.ts): the kill is the server's, not theirs.
  const operator = await operatorOn(engine, env);
  const h = new Harness(env, baseUrl);
  h.server = await startServe(env);
  const m = demoCredentials(h.server.output());
  const created = await operator.run(['accounts', 'create', '--name', 'Escrow kill', '--json']);
  expect(created.code, created.stderr).toBe(0);
  const a = JSON.parse(created.stdout) as {
    id: string;
    public_token: string;
    private_token: string;
  };
  const e: Credentials = {
    accountId: a.id,
    publicToken: a.public_token,
    privateToken: a.private_token,
  };
  const escrowOn = await operator.run(['accounts', 'set-escrow', e.accountId]);
  expect(escrowOn.code, escrowOn.stderr).toBe(0);
  const run = `d${Date.now().toString(36)}`;

  // --- Setup, no kill: a marketplace, an event, a daily subscription, sales of every kind, funds.
  const client = await must(baseUrl, m, 'POST', '/api/maclient', {
    email: 'client@example.com',
    name: 'Client',
    phone: '923122312',
    bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
  });
  const membership = await must(baseUrl, m, 'POST', '/api/maaffiliation', {
    name: 'market',
    percentage: '20',
    affiliation: [[client.id, '80']],
  });
  const eventCode = `ev-${run}`;
  await must(baseUrl, m, 'POST', '/api/event', {
    name: 'Kill event',
    event: eventCode,
    date_event: santiagoDate(2),
    // Midnight four Santiago days on is 72 to 96 hours away: inside phase 3's advance (49 to 121 hours), never in
    // phase 2's beside the ticket refunds. Three days on fell inside phase 2 when the run started after 23:00 in
    // Santiago, and a refund after the payout is rightly the merchant's to pay, not the beneficiary's (decision 650).
    date_payment: santiagoDate(4),
    date_closing_sales: santiagoDate(2),
    service_sale: 100,
    affiliation: [
      ['afiliate1@example.com', 30],
      ['afiliate2@example.com', 45.5],
    ],
  });
  const plan = await must(baseUrl, m, 'POST', '/api/suplan', {
    name: 'Daily',
    amount: 3_000,
    interval: 'day',
  });
  const suClient = await must(baseUrl, m, 'POST', '/api/suclient', {
    email: 'sub@example.com',
    name: 'Sub',
    rut: '11111111',
    phone: '1',
  });
  const sub = await must(baseUrl, m, 'POST', '/api/sususcription', {
    plan: plan.id,
    client: suClient.id,
  });
  const link = new URL(String(sub.url));
  const enrolled = await postForm(baseUrl, '/gateway/registrosuscripcion', {
    token: link.searchParams.get('token')!,
    validacion: link.searchParams.get('validacion')!,
    ...card,
  });
  expect(enrolled.text).toContain('Tarjeta registrada');

  const plain: Array<{ id: string; amount: number }> = [];
  for (let i = 0; i < 36; i++) {
    const amount = 20_000 + i * 7;
    plain.push({ id: await paidSale(baseUrl, m, `${run}-s-${i}`, amount), amount });
  }
  const split: string[] = [];
  for (let i = 0; i < 10; i++)
    split.push(
      await paidSale(baseUrl, m, `${run}-m-${i}`, 9_701 + i, { marketplace: membership.token }),
    );
  const tickets: string[] = [];
  for (let i = 0; i < 10; i++)
    tickets.push(await paidSale(baseUrl, m, `${run}-e-${i}`, 15_051 + i, { event: eventCode }));
  const held: Array<{ id: string; amount: number }> = [];
  for (let i = 0; i < 12; i++) {
    const amount = 5_000 + i;
    held.push({ id: await paidSale(baseUrl, e, `${run}-h-${i}`, amount), amount });
  }
  const creditMinor = 50_000;
  await must(baseUrl, m, 'POST', '/api/sandbox/wallet/credit', {
    amount: creditMinor,
    currency: 'CLP',
    reason: 'kill',
  });

  let seq = 0;
  const keyed = (label: string, who: Credentials, path: string, body: Record<string, unknown>) => ({
    label,
    who,
    path,
    body,
    key: `${run}-k${++seq}`,
  });
  const payoutBody = (order: string, amount: number) => ({
    email: 'johndoe@example.com',
    subject: 'due work kill',
    currency: 'CLP',
    order,
    amount,
    accountbank_name: 'Jhon Doe',
    accountbank_rut: '111111111',
    accountbank_sbif: '0001',
    accountbank_type: '1',
    accountbank_num: '12312312312',
  });
  const random = () => Math.random() * killSpread;
  const acked = { refunds: 0, payouts: 0, lost: 0 };
  const disputes: string[] = [];
  const refundsAcked = new Map<string, number>();
  const payoutOrders: string[] = [];

  // --- Phase 1: settlements (a day), chargebacks opened, small refunds, payouts from the credit.
  const p1: Keyed[] = [
    keyed('advance m 25h', m, '/api/sandbox/clock/advance', { hours: 25 }),
    keyed('advance e 25h', e, '/api/sandbox/clock/advance', { hours: 25 }),
  ];
  for (let i = 0; i < 6; i++)
    p1.push(
      keyed(`dispute ${i}`, m, '/api/sandbox/disputes', {
        transaction_id: plain[i]!.id,
        amount: 2_000 + i,
        reason: 'fraude',
      }),
    );
  for (let i = 6; i < 12; i++)
    p1.push(
      keyed(`small refund ${i}`, m, '/api/nullification', {
        id: plain[i]!.id,
        amount: 500 + i,
        subject: 'kill',
      }),
    );
  for (let i = 0; i < 10; i++) {
    const order = `${run}-p1-${i}`;
    p1.push(keyed(`payout ${order}`, m, '/api/wallet/payout', payoutBody(order, 1_000 + i)));
  }
  const a1 = await h.phase(p1, 20 + Math.floor(random() * 700));
  for (const r of p1) {
    const got = a1.get(r.key)!;
    expect(got.status, `${r.label}: ${got.text}`).toBe(200);
    if (r.path === '/api/sandbox/disputes')
      disputes.push(String((got.json.dispute as { id: string }).id));
    if (r.path === '/api/nullification') {
      expect(got.json.status, `${r.label}: ${got.text}`).toBe('success');
      refundsAcked.set(String(r.body.id), Number(r.body.amount));
    }
    if (r.path === '/api/wallet/payout') {
      expect(String(got.json.status).toLowerCase(), `${r.label}: ${got.text}`).toBe('success');
      acked.payouts += Number(r.body.amount);
      payoutOrders.push(String(r.body.order));
    }
  }

  // --- Phase 2: another day (client deposits start, billing), chargebacks resolved, escrow released, the wallet
  // paid out down to 1,000 beside money coming in and seven refunds. A refund of a sale settled by then takes the
  // merchant's part from the wallet, so the drain leaves their whole amount too: a refund that landed first made the
  // drain answer insufficient_funds (seen once on a quiet box, by ordering alone).
  const splitRefundMinor = (i: number) => 2_000 + i;
  const ticketRefundMinor = (i: number) => 3_000 + i;
  const refundsBesideMinor =
    [0, 1, 2, 3].reduce((sum, i) => sum + splitRefundMinor(i), 0) +
    [0, 1, 2].reduce((sum, i) => sum + ticketRefundMinor(i), 0);
  const w2 = await must(baseUrl, m, 'GET', '/api/wallet?currency=CLP');
  const drainMinor = Number(w2.amount_available) - 1_000 - refundsBesideMinor;
  expect(drainMinor).toBeGreaterThan(0);
  const p2: Keyed[] = [
    keyed('advance m 24h', m, '/api/sandbox/clock/advance', { hours: 24 }),
    keyed('advance e 24h', e, '/api/sandbox/clock/advance', { hours: 24 }),
    keyed('drain payout', m, '/api/wallet/payout', payoutBody(`${run}-p2-drain`, drainMinor)),
  ];
  for (const [i, id] of disputes.entries())
    p2.push(
      keyed(`resolve ${id}`, m, `/api/sandbox/disputes/${id}/resolve`, {
        outcome: i % 2 === 0 ? 'won' : 'lost',
      }),
    );
  for (let i = 0; i < held.length; i += 2)
    p2.push(
      keyed(`release ${i}`, e, '/api/escrow', {
        transactions: [held[i]!.id, held[i + 1]!.id],
      }),
    );
  for (let i = 0; i < 4; i++)
    p2.push(
      keyed(`split refund ${i}`, m, '/api/nullification', {
        id: split[i]!,
        amount: splitRefundMinor(i),
        subject: 'kill',
      }),
    );
  for (let i = 0; i < 3; i++)
    p2.push(
      keyed(`ticket refund ${i}`, m, '/api/nullification', {
        id: tickets[i]!,
        amount: ticketRefundMinor(i),
        subject: 'kill',
      }),
    );
  const a2 = await h.phase(p2, 20 + Math.floor(random() * 900));
  for (const r of p2) {
    const got = a2.get(r.key)!;
    expect(got.status, `${r.label}: ${got.text}`).toBe(200);
    if (r.path === '/api/wallet/payout') {
      expect(String(got.json.status).toLowerCase(), `${r.label}: ${got.text}`).toBe('success');
      acked.payouts += Number(r.body.amount);
      payoutOrders.push(String(r.body.order));
    }
    if (r.path.endsWith('/resolve') && r.body.outcome === 'lost')
      acked.lost += Number((got.json.dispute as { amount: number }).amount);
    if (r.path === '/api/nullification') {
      expect(got.json.status, `${r.label}: ${got.text}`).toBe('success');
      refundsAcked.set(String(r.body.id), Number(r.body.amount));
    }
    if (r.path === '/api/escrow')
      for (const t of got.json.transactions as Array<{ status: string }>)
        expect(t.status, r.label).toBe('liquidate');
  }

  // --- Phase 3: whole refunds the wallet cannot cover (collected from later settlements), three more days (event
  // payouts, deposits paid, daily billing).
  const p3: Keyed[] = [keyed('advance m 72h', m, '/api/sandbox/clock/advance', { hours: 72 })];
  for (let i = 20; i < 30; i++)
    p3.push(
      keyed(`whole refund ${i}`, m, '/api/nullification', {
        id: plain[i]!.id,
        amount: plain[i]!.amount,
        subject: 'kill',
      }),
    );
  for (let i = 30; i < 33; i++)
    p3.push(
      keyed(`debt dispute ${i}`, m, '/api/sandbox/disputes', {
        transaction_id: plain[i]!.id,
        amount: 4_000 + i,
        reason: 'fraude',
      }),
    );
  p3.push(keyed('advance e 72h', e, '/api/sandbox/clock/advance', { hours: 72 }));
  const a3 = await h.phase(p3, 20 + Math.floor(random() * 900));
  const debtDisputes: string[] = [];
  for (const r of p3) {
    const got = a3.get(r.key)!;
    expect(got.status, `${r.label}: ${got.text}`).toBe(200);
    if (r.path === '/api/sandbox/disputes')
      debtDisputes.push(String((got.json.dispute as { id: string }).id));
    if (r.path === '/api/nullification') {
      expect(got.json.status, `${r.label}: ${got.text}`).toBe('success');
      refundsAcked.set(String(r.body.id), Number(r.body.amount));
    }
  }

  // --- Phase 4: more days of billing and collection, killed again; then funds for what waits, drained unkilled.
  const p4: Keyed[] = [
    keyed('advance m 48h', m, '/api/sandbox/clock/advance', { hours: 48 }),
    keyed('advance e 1h', e, '/api/sandbox/clock/advance', { hours: 1 }),
  ];
  for (const [i, id] of debtDisputes.entries())
    p4.push(
      keyed(`resolve ${id}`, m, `/api/sandbox/disputes/${id}/resolve`, {
        outcome: i === 1 ? 'lost' : 'won',
      }),
    );
  const a4 = await h.phase(p4, 10 + Math.floor(random() * 400));
  for (const r of p4) {
    const got = a4.get(r.key)!;
    expect(got.status, `${r.label}: ${got.text}`).toBe(200);
    if (r.path.endsWith('/resolve') && r.body.outcome === 'lost')
      acked.lost += Number((got.json.dispute as { amount: number }).amount);
  }
  const topUpMinor = 400_000;
  await must(baseUrl, m, 'POST', '/api/sandbox/wallet/credit', {
    amount: topUpMinor,
    currency: 'CLP',
    reason: 'kill top-up',
  });
  // The last kill's leases run out (ATTEMPT_LEASE_MS), then the advances' due work finishes what they held.
  await new Promise((resolve) => setTimeout(resolve, leaseMs + 500));
  await must(baseUrl, m, 'POST', '/api/sandbox/clock/advance', { hours: 1 });
  await must(baseUrl, e, 'POST', '/api/sandbox/clock/advance', { hours: 1 });
  acked.refunds = [...refundsAcked.values()].reduce((s, x) => s + x, 0);

  // The wallet summary as the merchants read it after the restarts, compared with the ledger below.
  const summaries = {
    m: await must(baseUrl, m, 'GET', '/api/wallet?currency=CLP'),
    e: await must(baseUrl, e, 'GET', '/api/wallet?currency=CLP'),
  };
  try {
    const verify = await operator.run(['ledger', 'verify']);
    expect(verify.code, verify.stderr + verify.stdout).toBe(0);
    expect(verify.stdout).toMatch(/^ledger clean/);
  } finally {
    await h.server.stop();
    await operator.close();
  }

  const data = await engine.open();
  try {
    const db = data.db;
    const q = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows;
    const bal = async (owner: string, code: string) =>
      BigInt(
        (
          await q(sql<{ b: string | null }>`SELECT (SELECT balance_minor FROM ledger_accounts
            WHERE owner = ${owner} AND code = ${code} AND currency = 'CLP')::text AS b`)
        )[0]!.b ?? '0',
      );
    // Every paid sale settled once: a settled row, one settlement journal naming it (split/escrow) or its batch.
    const unsettled = await q(sql<{ id: string }>`SELECT id FROM transactions t
      WHERE account_id IN (${m.accountId}, ${e.accountId}) AND status IN ('success', 'refunded partial', 'refunded')
        AND settled_at IS NULL AND settle_due_at <= now() + COALESCE((SELECT offset_ms FROM sandbox_clocks c
          WHERE c.account_id = t.account_id), 0) * interval '1 millisecond'`);
    expect(unsettled, 'paid sales never settled').toEqual([]);
    const twice = await q(sql<{ reference: string; kind: string; n: string }>`
      SELECT reference, kind, COUNT(*)::text AS n FROM journal_entries
      WHERE kind IN ('transaction.capture', 'transaction.settlement', 'escrow.released', 'marketplace_split',
                     'marketplace_client_deposit',
                     'event_sale_split', 'dispute.opened', 'dispute.won', 'dispute.lost')
      GROUP BY reference, kind HAVING COUNT(*) > 1`);
    expect(twice, 'journals posted more than once').toEqual([]);
    // One settlement movement per plain sale in the batches: the batches' nets are what their sales' nets say.
    const batches = await q(sql<{ account_id: string; batches: string; sales: string }>`
      SELECT b.account_id, SUM(b.net_minor)::text AS batches,
        (SELECT COALESCE(SUM(t.amount_minor - t.fee_minor), 0) FROM transactions t
          WHERE t.settlement_batch_id IN (SELECT id FROM settlement_batches x WHERE x.account_id = b.account_id))::text AS sales
      FROM settlement_batches b WHERE b.account_id IN (${m.accountId}, ${e.accountId}) GROUP BY b.account_id`);
    for (const row of batches) expect(row.batches, row.account_id).toBe(row.sales);

    // Marketplace: every share deposited once, the payable empty.
    const shares = await q(sql<{
      client_id: string;
      status: string;
      amount: string;
      refunded: string;
      deposited: string;
    }>`
      SELECT s.client_id, s.status, s.amount_minor::text AS amount, s.refunded_minor::text AS refunded,
        (SELECT COALESCE(SUM(p.amount_minor), 0) FROM journal_entries j JOIN postings p ON p.journal_id = j.id
          JOIN ledger_accounts la ON la.id = p.ledger_account_id
          WHERE j.kind = 'marketplace_client_deposit' AND j.reference = s.transaction_id
            AND la.owner = s.client_id)::text AS deposited
      FROM ma_payment_shares s WHERE s.account_id = ${m.accountId}`);
    expect(shares).toHaveLength(10);
    for (const s of shares) {
      expect(s.status).toBe('paid');
      // Less what a refund took back from the payable before the deposit started (decision 116).
      expect(
        [`-${s.amount}`, `-${BigInt(s.amount) - BigInt(s.refunded)}`],
        JSON.stringify(s),
      ).toContain(s.deposited);
    }
    const clientShares = shares.reduce((sum, s) => sum + BigInt(s.amount), 0n);
    expect(await bal(String(client.id), 'client_payable')).toBe(0n);

    // Event: each beneficiary paid once what its shares add up to.
    const people = await q(sql<{
      id: string;
      status: string;
      paid: string;
      owed: string;
      refunded: string;
      payouts: string;
    }>`
      SELECT b.id, b.status, b.paid_minor::text AS paid,
        (SELECT COALESCE(SUM(x.amount_minor), 0) FROM event_sale_shares x WHERE x.beneficiary_id = b.id)::text AS owed,
        (SELECT COALESCE(SUM(x.refunded_minor), 0) FROM event_sale_shares x WHERE x.beneficiary_id = b.id)::text AS refunded,
        (SELECT COUNT(*) FROM journal_entries j JOIN postings p ON p.journal_id = j.id
          JOIN ledger_accounts la ON la.id = p.ledger_account_id
          WHERE j.kind = 'event_beneficiary_payout' AND la.owner = b.id)::text AS payouts
      FROM event_beneficiaries b JOIN events v ON v.id = b.event_id WHERE v.account_id = ${m.accountId}`);
    expect(people).toHaveLength(2);
    for (const p of people) {
      expect(p.status).toBe('paid');
      expect(p.paid, JSON.stringify(p)).toBe(String(BigInt(p.owed) - BigInt(p.refunded)));
      expect(p.payouts, JSON.stringify(p)).toBe('1');
      expect(await bal(p.id, 'beneficiary_payable')).toBe(0n);
    }
    const beneficiaryShares = people.reduce((sum, p) => sum + BigInt(p.owed), 0n);

    // Billing: each cycle paid by one payment, captured once.
    const cycles = await q(sql<{ cycle_number: number; status: string; payments: string }>`
      SELECT c.cycle_number, c.status,
        (SELECT COUNT(*) FROM su_charges g JOIN transactions t ON t.id = g.transaction_id
          WHERE g.subscription_id = c.subscription_id AND g.cycle_number = c.cycle_number
            AND t.status = 'success')::text AS payments
      FROM su_cycles c WHERE c.subscription_id = ${String(sub.id)} ORDER BY c.cycle_number`).catch(
      async (error) => {
        throw new Error(`cycles query: ${String(error)}`);
      },
    );
    expect(cycles.length).toBeGreaterThanOrEqual(5);
    expect(cycles.filter((c) => c.payments !== '1')).toEqual([]);

    // Refunds: one per acknowledged request, all collected.
    const refunds = await q(sql<{
      transaction_id: string;
      n: string;
      amount: string;
      waiting: string;
    }>`
      SELECT transaction_id, COUNT(*)::text AS n, SUM(amount_minor)::text AS amount,
        COUNT(*) FILTER (WHERE status <> 'reverse_completed')::text AS waiting
      FROM nullifications WHERE account_id = ${m.accountId} GROUP BY transaction_id`);
    expect(refunds.map((r) => [r.transaction_id, r.n, r.amount, r.waiting]).sort()).toEqual(
      [...refundsAcked.entries()].map(([id, amt]) => [id, '1', String(amt), '0']).sort(),
    );

    // Payouts: one per order.
    const payouts = await q(sql<{ order: string; n: string }>`
      SELECT "order", COUNT(*)::text AS n FROM payouts WHERE account_id = ${m.accountId} GROUP BY "order"`);
    expect(payouts.map((p) => [p.order, p.n]).sort()).toEqual(
      payoutOrders.map((o) => [o, '1']).sort(),
    );

    // The merchant's money: what came in less what went out, exactly.
    const gross = BigInt(
      (
        await q(sql<{
          g: string;
        }>`SELECT COALESCE(SUM(amount_minor), 0)::text AS g FROM transactions
          WHERE account_id = ${m.accountId} AND status IN ('success', 'refunded partial', 'refunded')`)
      )[0]!.g,
    );
    const fees = BigInt(
      (
        await q(sql<{ f: string }>`SELECT COALESCE(SUM(fee_minor), 0)::text AS f FROM transactions
          WHERE account_id = ${m.accountId} AND status IN ('success', 'refunded partial', 'refunded')`)
      )[0]!.f,
    );
    expect(fees).toBe(0n);
    const own =
      (await bal(m.accountId, 'wallet_available')) +
      (await bal(m.accountId, 'pending_settlement')) +
      (await bal(m.accountId, 'dispute_held')) +
      (await bal(m.accountId, 'dispute_debt')) +
      (await bal(m.accountId, 'escrow_held'));
    expect(await bal(m.accountId, 'dispute_held')).toBe(0n);
    const open = await q(sql<{ id: string; status: string }>`SELECT id, status FROM disputes
      WHERE account_id = ${m.accountId} AND status NOT IN ('won', 'lost')`);
    expect(open).toEqual([]);
    // What refunds of split sales took back from the clients' and beneficiaries' payables, not from the merchant.
    const fromPayables = BigInt(
      (
        await q(sql<{ x: string }>`SELECT COALESCE(-SUM(p.amount_minor), 0)::text AS x
          FROM journal_entries j JOIN postings p ON p.journal_id = j.id
          JOIN ledger_accounts la ON la.id = p.ledger_account_id
          WHERE j.kind = 'refund.split_collected' AND la.code IN ('client_payable', 'beneficiary_payable')
            AND j.reference IN (SELECT id FROM nullifications WHERE account_id = ${m.accountId})`)
      )[0]!.x,
    );
    const debtOpened = await q(sql<{ n: string }>`SELECT COUNT(*)::text AS n FROM journal_entries j
      JOIN postings p ON p.journal_id = j.id JOIN ledger_accounts la ON la.id = p.ledger_account_id
      WHERE j.kind = 'dispute.debt_collected' AND la.owner = ${m.accountId}`);
    const waited = await q(sql<{ n: string }>`SELECT COUNT(*)::text AS n FROM nullifications
      WHERE account_id = ${m.accountId} AND type = 'partial'`);
    process.stdout.write(
      `kill-due-work: ${fromPayables} from payables, ${debtOpened[0]!.n} debt collections, ${waited[0]!.n} refunds waited for funds\n`,
    );
    expect(own).toBe(
      fromPayables +
        BigInt(creditMinor + topUpMinor) +
        gross -
        clientShares -
        beneficiaryShares -
        BigInt(acked.refunds) -
        BigInt(acked.payouts) -
        BigInt(acked.lost),
    );
    expect(BigInt(Number(summaries.m.amount_available))).toBe(
      await bal(m.accountId, 'wallet_available'),
    );
    expect(BigInt(Number(summaries.e.amount_available))).toBe(
      await bal(e.accountId, 'wallet_available'),
    );
    // The escrow merchant: every sale released once, all its money in the wallet.
    expect(await bal(e.accountId, 'escrow_held')).toBe(0n);
    expect(await bal(e.accountId, 'wallet_available')).toBe(
      BigInt(held.reduce((s, x) => s + x.amount, 0)),
    );
    process.stdout.write(
      `kill-due-work (${engine.name}): ${h.kills} SIGKILLs, ${h.answeredBeforeKill} answers before them (${h.log.join(' ')}), ${cycles.length} billing cycles\n`,
    );
  } finally {
    await data.close();
  }
}

describe('kill -9 while due work drains and money moves around it, restart, retry with the same keys', () => {
  it('moves every amount exactly once', { timeout: 180_000 }, async () => {
    const engine = await suiteEngine();
    try {
      await scenario(engine);
    } finally {
      await engine.dispose();
    }
  });
});
