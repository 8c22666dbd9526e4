// The seeded simulation's world: a deterministic PRNG picks, step after step, one merchant and one operation
// (a payment created and paid on the hosted checkout, a refund, a payout, a withdrawal, a wallet credit, a
// subscription charge, a clock advance, or a retry of an earlier request with its Idempotency-Key), sends it
// through a transport (app.inject, or HTTP to a real `cobro serve`) and keeps a model of what was acknowledged.
// The checks (the ledger, the wallets, every acknowledged operation present exactly once) read the database.
import { sql } from 'kysely';
import type { DbOrTx } from '../../src/platform/db/types.ts';
import { cardExpiry } from './load.ts';

/** mulberry32: small, fast and the same on every machine; a seed replays the same choices. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seedFromEnv(): number {
  const given = process.env.SIM_SEED;
  return given !== undefined && given !== '' ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}

export interface Merchant {
  readonly id: string;
  readonly publicToken: string;
  readonly privateToken: string;
  /** An active subscription with an enrolled card, for subscription charges. */
  subscription: string | null;
}

export interface Reply {
  readonly status: number;
  readonly text: string;
  readonly replayed: boolean;
}

export interface Transport {
  api(
    who: Merchant,
    method: 'GET' | 'POST',
    url: string,
    body?: Record<string, unknown>,
    key?: string,
  ): Promise<Reply>;
  form(pathAndQuery: string, fields: Record<string, string>): Promise<Reply>;
  /** Requests a crash cut off so far (sent again after the restart); absent without crashes. */
  interrupted?(): number;
}

interface Keyed {
  readonly who: Merchant;
  readonly url: string;
  readonly body: Record<string, unknown>;
  readonly key: string;
  readonly first: Reply;
}

/** What the service acknowledged: each is checked to exist exactly once. */
export interface Model {
  readonly transactions: Map<
    string,
    { id: string; account: string; paid: boolean; refundable: number }
  >;
  readonly payouts: Set<string>;
  readonly nullifications: Map<string, number>;
  readonly keyed: Keyed[];
  readonly counts: Record<string, number>;
}

function emptyModel(): Model {
  return {
    transactions: new Map(),
    payouts: new Set(),
    nullifications: new Map(),
    keyed: [],
    counts: {},
  };
}

const cards = { approved: '4051 8856 0044 6623', declined: '5186 0595 5959 0568' };
const weights: Array<[string, number]> = [
  ['pay', 30],
  ['refund', 12],
  ['payout', 14],
  ['withdraw', 5],
  ['credit', 6],
  ['charge', 8],
  ['advance', 6],
  ['replay', 15],
];
const totalWeight = weights.reduce((s, [, w]) => s + w, 0);

function parse(reply: Reply): Record<string, unknown> {
  try {
    return JSON.parse(reply.text) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export class Simulation {
  readonly model = emptyModel();
  private seq = 0;
  private readonly random: () => number;
  private readonly merchants: readonly Merchant[];
  private readonly run: string;

  constructor(random: () => number, merchants: readonly Merchant[], run: string) {
    this.random = random;
    this.merchants = merchants;
    this.run = run;
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }
  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)]!;
  }

  /** Picks the next operation; the choice depends only on the seed and the answers so far. */
  choose(): { op: string; who: Merchant } {
    let r = this.random() * totalWeight;
    const op = weights.find(([, w]) => (r -= w) < 0)![0];
    return { op, who: this.pick(this.merchants) };
  }

  /** One keyed command; a 2xx answer (even a business `failed`) is stored so a later replay must match it. */
  private async keyed(
    transport: Transport,
    who: Merchant,
    url: string,
    body: Record<string, unknown>,
  ): Promise<Record<string, unknown> | null> {
    const key = `${this.run}-k${++this.seq}`;
    const reply = await transport.api(who, 'POST', url, body, key);
    if (reply.status >= 500 || reply.status === 409)
      throw new Error(`${url} answered ${reply.status}: ${reply.text}`);
    this.model.keyed.push({ who, url, body, key, first: reply });
    return reply.status === 200 ? parse(reply) : null;
  }

  async step(transport: Transport, op: string, who: Merchant): Promise<void> {
    this.model.counts[op] = (this.model.counts[op] ?? 0) + 1;
    const order = `${this.run}-${++this.seq}`;
    if (op === 'pay') {
      const amount = this.int(1_000, 60_000);
      const created = await this.keyed(transport, who, '/api/transaction', {
        email: 'payer@example.com',
        order,
        subject: 'sim',
        amount,
      });
      if (created?.status !== 'pending')
        throw new Error(`transaction create refused: ${JSON.stringify(created)}`);
      const id = created.id as string;
      this.model.transactions.set(order, { id, account: who.id, paid: false, refundable: 0 });
      const u = new URL(created.url as string);
      const approved = this.random() < 0.85;
      const cutBefore = transport.interrupted?.() ?? 0;
      await transport.form(u.pathname, {
        ...Object.fromEntries(u.searchParams),
        method: '1',
        card_number: approved ? cards.approved : cards.declined,
        expiry: cardExpiry,
        cvv: '123',
      });
      const got = parse(await transport.api(who, 'GET', `/api/transaction/${id}`));
      // A crash between the attempt's claim and its record leaves the payment pending (nothing recorded, the claim
      // held for its lease, as a payer would see "procesando"): allowed only when a request of this step was cut off.
      const lostAttempt =
        approved && got.status === 'pending' && (transport.interrupted?.() ?? 0) > cutBefore;
      if (lostAttempt) this.model.counts.lostAttempt = (this.model.counts.lostAttempt ?? 0) + 1;
      else if (got.status !== (approved ? 'success' : 'pending'))
        throw new Error(
          `payment ${order} is ${String(got.status)}, expected ${approved ? 'success' : 'pending'}`,
        );
      if (approved && !lostAttempt)
        this.model.transactions.set(order, { id, account: who.id, paid: true, refundable: amount });
    } else if (op === 'refund') {
      const paid = [...this.model.transactions.entries()].filter(
        ([, t]) => t.account === who.id && t.paid && t.refundable > 0,
      );
      if (paid.length === 0) return;
      const [txOrder, t] = this.pick(paid);
      const amount = this.random() < 0.1 ? t.refundable + 1 : this.int(1, t.refundable);
      const res = await this.keyed(transport, who, '/api/nullification', {
        id: t.id,
        amount,
        subject: 'sim refund',
      });
      if (res?.status === 'success') {
        if (amount > t.refundable)
          throw new Error(
            `refund of ${amount} over the ${t.refundable} left on ${txOrder} was accepted`,
          );
        t.refundable -= amount;
        this.model.nullifications.set(txOrder, (this.model.nullifications.get(txOrder) ?? 0) + 1);
      }
    } else if (op === 'payout' || op === 'withdraw') {
      const amount = this.int(100, 40_000);
      const body =
        op === 'payout'
          ? {
              email: 'johndoe@example.com',
              subject: 'sim payout',
              currency: 'CLP',
              order,
              amount,
              accountbank_name: 'Jhon Doe',
              accountbank_rut: '111111111',
              accountbank_sbif: '0001',
              accountbank_type: '1',
              accountbank_num: '12312312312',
            }
          : { subject: 'sim withdraw', currency: 'CLP', order, amount };
      const res = await this.keyed(transport, who, `/api/wallet/${op}`, body);
      if (res !== null && String(res.status).toLowerCase() === 'success')
        this.model.payouts.add(`${who.id}/${order}`);
    } else if (op === 'credit') {
      await this.keyed(transport, who, '/api/sandbox/wallet/credit', {
        amount: this.int(1_000, 50_000),
        currency: 'CLP',
        reason: 'sim',
      });
    } else if (op === 'charge') {
      if (who.subscription === null) return;
      const amount = this.int(500, 20_000);
      const res = await this.keyed(transport, who, '/api/sutransaction', {
        suscription: who.subscription,
        amount,
        order,
        description: 'sim',
      });
      if (res?.status !== 'success')
        throw new Error(`subscription charge refused: ${JSON.stringify(res)}`);
      this.model.transactions.set(`su:${who.id}/${order}`, {
        id: String(res.transaction_id),
        account: who.id,
        paid: true,
        refundable: 0,
      });
    } else if (op === 'advance') {
      const seconds = this.pick([60, 3_600, 6 * 3_600, 86_400, 2 * 86_400]);
      await this.keyed(transport, who, '/api/sandbox/clock/advance', { seconds });
    } else if (op === 'replay') {
      if (this.model.keyed.length === 0) return;
      const earlier = this.pick(this.model.keyed);
      const again = await transport.api(
        earlier.who,
        'POST',
        earlier.url,
        earlier.body,
        earlier.key,
      );
      if (!again.replayed || again.text !== earlier.first.text) {
        throw new Error(
          `retry of ${earlier.url} with key ${earlier.key} was not a byte-identical replay: ${again.text.slice(0, 300)}`,
        );
      }
    }
  }
}

/** A sale created and paid on the hosted checkout with the approved test card; answers its id. */
export async function paidSale(
  transport: Transport,
  m: Merchant,
  order: string,
  amount = 20_000,
): Promise<string> {
  const created = parse(
    await transport.api(m, 'POST', '/api/transaction', {
      email: 'payer@example.com',
      order,
      subject: 'paid sale',
      amount,
    }),
  );
  const u = new URL(created.url as string);
  await transport.form(u.pathname, {
    ...Object.fromEntries(u.searchParams),
    method: '1',
    card_number: cards.approved,
    expiry: cardExpiry,
    cvv: '123',
  });
  const got = parse(await transport.api(m, 'GET', `/api/transaction/${created.id as string}`));
  if (got.status !== 'success')
    throw new Error(`sale ${order} is ${String(got.status)} after paying`);
  return created.id as string;
}

/** A plan, a client and a subscription with a card enrolled on its hosted page, so the merchant can charge it. */
export async function subscribe(transport: Transport, m: Merchant): Promise<string> {
  const plan = parse(await transport.api(m, 'POST', '/api/suplan', { name: 'Sim', amount: 5_000 }));
  const client = parse(
    await transport.api(m, 'POST', '/api/suclient', {
      email: 'sim@example.com',
      name: 'Sim',
      rut: '11111111',
      phone: '1',
    }),
  );
  const sub = parse(
    await transport.api(m, 'POST', '/api/sususcription', { plan: plan.id, client: client.id }),
  );
  const link = new URL(sub.url as string);
  const page = await transport.form('/gateway/registrosuscripcion', {
    token: link.searchParams.get('token')!,
    validacion: link.searchParams.get('validacion')!,
    card_number: cards.approved,
    expiry: cardExpiry,
    cvv: '123',
  });
  if (!page.text.includes('Tarjeta registrada'))
    throw new Error(`enrolment failed: ${page.text.slice(0, 300)}`);
  return sub.id as string;
}

/** The invariants, read from the database: the ledger (as `cobro ledger verify`), wallets, exactly once. */
export async function checkWorld(
  db: DbOrTx,
  model: Model,
  merchants: readonly Merchant[],
  verify: () => Promise<{ ok: boolean; fault?: string }>,
): Promise<void> {
  const ledger = await verify();
  if (!ledger.ok) throw new Error(`ledger: ${ledger.fault}`);
  const ids = merchants.map((m) => m.id);
  const negative = await sql<{
    owner: string;
    balance: string;
  }>`SELECT owner, balance_minor::text AS balance FROM ledger_accounts
    WHERE code = 'wallet_available' AND balance_minor < 0 AND owner IN (${sql.join(ids)})`.execute(
    db,
  );
  if (negative.rows.length > 0)
    throw new Error(`negative wallet: ${JSON.stringify(negative.rows)}`);
  const dupes = await sql<{ n: string }>`SELECT (
      (SELECT COUNT(*) FROM (SELECT 1 FROM transactions WHERE account_id IN (${sql.join(ids)}) GROUP BY account_id, "order" HAVING COUNT(*) > 1) d)
    + (SELECT COUNT(*) FROM (SELECT 1 FROM payouts WHERE account_id IN (${sql.join(ids)}) GROUP BY account_id, "order" HAVING COUNT(*) > 1) e))::text AS n`.execute(
    db,
  );
  if (dupes.rows[0]!.n !== '0') throw new Error(`${dupes.rows[0]!.n} orders exist more than once`);
  const counted = await sql<{
    transactions: string;
    payouts: string;
    paid: string;
    nullifications: string;
  }>`SELECT
    (SELECT COUNT(*) FROM transactions WHERE account_id IN (${sql.join(ids)}))::text AS transactions,
    (SELECT COUNT(*) FROM transactions WHERE account_id IN (${sql.join(ids)}) AND status IN ('success', 'refunded partial', 'refunded'))::text AS paid,
    (SELECT COUNT(*) FROM payouts WHERE account_id IN (${sql.join(ids)}))::text AS payouts,
    (SELECT COUNT(*) FROM nullifications WHERE account_id IN (${sql.join(ids)}))::text AS nullifications`.execute(
    db,
  );
  const c = counted.rows[0]!;
  const expected = {
    transactions: model.transactions.size,
    paid: [...model.transactions.values()].filter((t) => t.paid).length,
    payouts: model.payouts.size,
    nullifications: [...model.nullifications.values()].reduce((s, n) => s + n, 0),
  };
  const actual = {
    transactions: Number(c.transactions),
    paid: Number(c.paid),
    payouts: Number(c.payouts),
    nullifications: Number(c.nullifications),
  };
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new Error(
      `acknowledged ${JSON.stringify(expected)} but the database holds ${JSON.stringify(actual)}`,
    );
}
