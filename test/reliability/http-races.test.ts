// Money raced over real HTTP against real `cobro serve` processes: two of them over one PostgreSQL (each with its
// own pool, so the racing requests truly run at once on several connections), one on PGlite. Requests fired together
// are spread over both processes. After each race: every acknowledged effect exists exactly once, no ceiling is
// crossed, the wallet the API shows is the ledger's, and `cobro ledger verify` passes.
// Each race has just enough contenders to race (2 to 4 at once on a sale, a key or a wallet), and the stage is the
// file's: the servers and every race's account are made once, operator commands run without a process of their own
// (races.ts), and a race's sales are made together (decision 760: CI's budget).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, cardExpiry, payCheckout, postForm, type Credentials } from './load.ts';
import {
  advance,
  balanceMinor,
  expectLedgerClean,
  newAccount,
  paidSale,
  payoutBody,
  startStage,
  urlOf,
  type Stage,
} from './races.ts';

const onPostgres = (process.env.DATABASE_URL ?? '') !== '';
let stage: Stage;

/** Every race's own account (fee 0), so its sums stay exact whatever the other races did. */
const accountNames = {
  refund: 'refund race',
  payout: 'payout race',
  payoutCredit: 'payout credit race',
  sameKey: 'same key',
  twoBodies: 'same key two bodies',
  settle: 'settle race',
  refundDispute: 'refund dispute race',
  escrow: 'escrow race',
  escrowRefund: 'escrow refund race',
  drain: 'drain race',
  sameOrder: 'same order',
  doubleSubmit: 'double submit',
  doubleSubmitStore: 'double submit store',
  escrowDispute: 'escrow dispute race',
} as const;
type Race = keyof typeof accountNames;
let acct: Record<Race, Credentials>;

beforeAll(async () => {
  stage = await startStage();
  // One after another: an operator command is quick without a process of its own (races.ts).
  const made: Partial<Record<Race, Credentials>> = {};
  for (const r of Object.keys(accountNames) as Race[])
    made[r] = await newAccount(stage, accountNames[r]);
  acct = made as Record<Race, Credentials>;
  const settings = [acct.escrow, acct.escrowRefund, acct.escrowDispute].map((who) => [
    'accounts',
    'set-escrow',
    who.accountId,
  ]);
  settings.push(
    ['accounts', 'set-bank', acct.drain.accountId, '--sbif', '0001', '--type', '1'].concat([
      '--num',
      '123456',
      '--rut',
      '111111111',
      '--name',
      'Tienda',
    ]),
  );
  for (const argv of settings) {
    const done = await stage.operator(argv);
    expect(done.code, done.stderr + done.stdout).toBe(0);
  }
}, 240_000);
afterAll(async () => {
  await stage?.close();
});

const refundOk = (r: { status: number; json: Record<string, unknown> }) =>
  r.status === 200 && r.json.status !== 'failed';

async function walletAvailable(who: Credentials): Promise<number> {
  const w = await call(stage.urls[0]!, who, 'GET', '/api/wallet');
  expect(w.status, w.text).toBe(200);
  return Number(w.json.amount_available);
}

/** `n` sales of `amount` paid at once, ordered `${prefix}-${i}`; their ids in that order. */
function paidSales(who: Credentials, prefix: string, n: number, amount: number) {
  return Promise.all(
    Array.from({ length: n }, (_, i) => paidSale(stage, who, `${prefix}-${i}`, amount)),
  );
}

async function credit(who: Credentials, amount: number): Promise<void> {
  const c = await call(stage.urls[0]!, who, 'POST', '/api/sandbox/wallet/credit', {
    amount,
    currency: 'CLP',
    reason: 'race funds',
  });
  expect(c.status, c.text).toBe(200);
}

describe('money raced over HTTP across processes', { timeout: 240_000 }, () => {
  it('two refunds at once that together exceed the sale: one succeeds, the sale is refunded once', async () => {
    const who = acct.refund;
    // Half settled first, so the refunds pay from the wallet; half still pending settlement.
    const sales = await paidSales(who, 'rr', 2, 10_000);
    expect((await advance(stage.urls[0]!, who, { seconds: 1 })).status).toBe(200);
    sales.push(...(await paidSales(who, 'ru', 2, 10_000)));
    const fired = sales.flatMap((id, s) =>
      [0, 1, 2].map((k) =>
        call(urlOf(stage, s + k), who, 'POST', '/api/nullification', {
          id,
          amount: 4_000,
          subject: 'race',
        }).then((r) => ({ id, ...r })),
      ),
    );
    const answers = await Promise.all(fired);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    for (const id of sales) {
      const mine = answers.filter((a) => a.id === id);
      expect(mine.filter(refundOk).length, JSON.stringify(mine)).toBe(2);
      const sale = await call(stage.urls[0]!, who, 'GET', `/api/transaction/${id}`);
      expect(sale.json.status, sale.text).toBe('refunded partial');
    }
    // 2 settled sales of 10,000 less 2 × 4,000 refunded each; the unsettled 2 settle what is left of them.
    expect((await advance(stage.urls[0]!, who, { seconds: 1 })).status).toBe(200);
    expect(await walletAvailable(who)).toBe(4 * 2_000);
    await expectLedgerClean(stage);
  });

  it('two payouts at once that together exceed the wallet, across processes: the balance never goes below zero', async () => {
    const who = acct.payout;
    await credit(who, 10_000);
    const fired = Array.from({ length: 4 }, (_, i) =>
      call(urlOf(stage, i), who, 'POST', '/api/wallet/payout', payoutBody(`pr-${i}`, 4_000)),
    );
    const answers = await Promise.all(fired);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    const accepted = answers.filter((a) => a.status === 200 && a.json.status !== 'failed');
    expect(accepted.length, JSON.stringify(answers.map((a) => a.text))).toBe(2);
    expect(await walletAvailable(who)).toBe(2_000);
    await expectLedgerClean(stage);
  });

  it('a payout racing credits: every credit and every accepted payout counted once', async () => {
    const who = acct.payoutCredit;
    await credit(who, 3_000);
    const fired: Promise<{ kind: string; ok: boolean; text: string }>[] = [];
    for (let i = 0; i < 3; i++) {
      fired.push(
        call(urlOf(stage, i), who, 'POST', '/api/wallet/payout', payoutBody(`pc-${i}`, 2_000)).then(
          (r) => ({
            kind: 'payout',
            ok: r.status === 200 && r.json.status !== 'failed',
            text: r.text,
          }),
        ),
      );
      fired.push(
        call(urlOf(stage, i + 1), who, 'POST', '/api/sandbox/wallet/credit', {
          amount: 1_000,
          currency: 'CLP',
          reason: 'race credit',
        }).then((r) => ({ kind: 'credit', ok: r.status === 200, text: r.text })),
      );
    }
    const answers = await Promise.all(fired);
    expect(answers.filter((a) => a.text.includes('Internal Server Error'))).toEqual([]);
    const credits = answers.filter((a) => a.kind === 'credit' && a.ok).length;
    const payouts = answers.filter((a) => a.kind === 'payout' && a.ok).length;
    expect(credits).toBe(3);
    expect(await walletAvailable(who)).toBe(3_000 + credits * 1_000 - payouts * 2_000);
    await expectLedgerClean(stage);
  });

  it('the same Idempotency-Key sent to two processes at once makes one payout', async () => {
    const who = acct.sameKey;
    await credit(who, 50_000);
    for (let round = 0; round < 3; round++) {
      const key = `same-key-${round}`;
      const body = payoutBody(`sk-${round}`, 1_000);
      const answers = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          call(urlOf(stage, i), who, 'POST', '/api/wallet/payout', body, {
            'idempotency-key': key,
          }),
        ),
      );
      expect(answers.filter((a) => a.status >= 500)).toEqual([]);
      // Each answer is the one payout (first or replayed) or "still in flight" (409).
      const done = answers.filter((a) => a.status === 200);
      expect(new Set(done.map((a) => a.json.identifier_payout)).size).toBe(1);
      expect(answers.filter((a) => a.status !== 200 && a.status !== 409)).toEqual([]);
    }
    expect(await walletAvailable(who)).toBe(50_000 - 3 * 1_000);
    await expectLedgerClean(stage);
  });

  it('the same Idempotency-Key with two bodies at once: one effect, the other refused', async () => {
    const who = acct.twoBodies;
    await credit(who, 50_000);
    for (let round = 0; round < 3; round++) {
      const key = `two-bodies-${round}`;
      const answers = await Promise.all(
        [1_000, 2_000].map((amount, i) =>
          call(
            urlOf(stage, i),
            who,
            'POST',
            '/api/wallet/payout',
            payoutBody(`tb-${round}`, amount),
            {
              'idempotency-key': key,
            },
          ),
        ),
      );
      expect(answers.filter((a) => a.status >= 500)).toEqual([]);
      expect(answers.filter((a) => a.status === 200).length, JSON.stringify(answers)).toBe(1);
    }
    const left = await walletAvailable(who);
    expect(50_000 - left).toBeGreaterThanOrEqual(3 * 1_000);
    expect(50_000 - left).toBeLessThanOrEqual(3 * 2_000);
    await expectLedgerClean(stage);
  });

  it('the settlement run in two processes at once settles each sale once', async () => {
    const who = acct.settle;
    await Promise.all(
      Array.from({ length: 4 }, (_, i) => paidSale(stage, who, `sr-${i}`, 5_000 + i)),
    );
    const moves = await Promise.all(
      [0, 1, 2, 3].map((i) => advance(urlOf(stage, i), who, { seconds: 1 })),
    );
    expect(moves.map((m) => m.status)).toEqual([200, 200, 200, 200]);
    expect(await walletAvailable(who)).toBe(4 * 5_000 + 6);
    if (onPostgres) expect(await balanceMinor(stage, who.accountId, 'pending_settlement')).toBe(0n);
    await expectLedgerClean(stage);
  });

  it('a refund racing a chargeback across processes keeps the sale within its amount', async () => {
    const who = acct.refundDispute;
    const sales = await paidSales(who, 'rd', 3, 10_000);
    const fired = sales.flatMap((id, s) => [
      call(urlOf(stage, s), who, 'POST', '/api/nullification', {
        id,
        amount: 6_000,
        subject: 'race',
      }).then((r) => ({ id, kind: 'refund', ok: refundOk(r), text: r.text, status: r.status })),
      call(urlOf(stage, s + 1), who, 'POST', '/api/sandbox/disputes', {
        transaction_id: id,
        amount: 6_000,
        reason: 'fraudulent',
      }).then((r) => ({
        id,
        kind: 'dispute',
        ok: r.status === 200 && r.json.status !== 'failed',
        text: r.text,
        status: r.status,
      })),
    ]);
    const answers = await Promise.all(fired);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    for (const id of sales)
      expect(
        answers.filter((a) => a.id === id && a.ok).length,
        JSON.stringify(answers.filter((a) => a.id === id)),
      ).toBe(1);
    await expectLedgerClean(stage);
  });

  it('an escrow release sent twice at once to two processes releases once', async () => {
    const who = acct.escrow;
    const sales = await paidSales(who, 'er', 3, 7_000);
    expect((await advance(stage.urls[0]!, who, { seconds: 1 })).status).toBe(200);
    expect(await walletAvailable(who)).toBe(0);
    const answers = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        call(urlOf(stage, i), who, 'POST', '/api/escrow', { transactions: sales }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await walletAvailable(who)).toBe(3 * 7_000);
    await expectLedgerClean(stage);
  });

  it('an escrow release racing a refund of the held sale: the money leaves once', async () => {
    const who = acct.escrowRefund;
    const sales = await paidSales(who, 'ef', 3, 7_000);
    expect((await advance(stage.urls[0]!, who, { seconds: 1 })).status).toBe(200);
    const answers = await Promise.all(
      sales.flatMap((id, s) => [
        call(urlOf(stage, s), who, 'POST', '/api/escrow', { transactions: [id] }),
        call(urlOf(stage, s + 1), who, 'POST', '/api/nullification', {
          id,
          amount: 7_000,
          subject: 'race',
        }),
      ]),
    );
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    const refunded = answers.filter(
      (a) =>
        a.json.status !== undefined &&
        a.json.status !== 'failed' &&
        'transactions' in a.json === false,
    ).length;
    // What is not refunded is released, or still held (a refund first leaves nothing to release).
    const held = await call(stage.urls[0]!, who, 'POST', '/api/escrow', { transactions: sales });
    expect(held.status).toBe(200);
    expect(await walletAvailable(who)).toBe((3 - refunded) * 7_000);
    await expectLedgerClean(stage);
  });

  it('refunds, payouts, withdrawals and the settlement run draining one wallet at once across processes', async () => {
    const who = acct.drain;
    const settled = await paidSales(who, 'dr', 3, 4_000);
    expect((await advance(stage.urls[0]!, who, { seconds: 1 })).status).toBe(200);
    const unsettled = await paidSales(who, 'du', 3, 3_000);
    // 12,000 in the wallet, 9,000 waiting for settlement; the race asks for 12,000 of refunds of settled sales,
    // 9,000 of refunds of unsettled ones, 9,000 of payouts and 4,000 of withdrawals, while the clock settles.
    type Fired = { kind: string; amount: number; ok: boolean; status: number; text: string };
    const fired: Promise<Fired>[] = [];
    const tally = (kind: string, amount: number) => (r: Awaited<ReturnType<typeof call>>) => ({
      kind,
      amount,
      ok: r.status === 200 && r.json.status !== 'failed',
      status: r.status,
      text: r.text,
    });
    for (const [i, id] of [...settled, ...unsettled].entries())
      fired.push(
        call(urlOf(stage, i), who, 'POST', '/api/nullification', {
          id,
          amount: i < 3 ? 4_000 : 3_000,
          subject: 'race',
        }).then(tally('refund', i < 3 ? 4_000 : 3_000)),
      );
    for (let i = 0; i < 3; i++) {
      fired.push(
        call(
          urlOf(stage, i + 1),
          who,
          'POST',
          '/api/wallet/payout',
          payoutBody(`dp-${i}`, 3_000),
        ).then(tally('payout', 3_000)),
      );
      if (i < 2)
        fired.push(
          call(urlOf(stage, i), who, 'POST', '/api/wallet/withdraw', {
            subject: 'race withdraw',
            currency: 'CLP',
            order: `dw-${i}`,
            amount: 2_000,
          }).then(tally('withdraw', 2_000)),
        );
    }
    fired.push(
      advance(urlOf(stage, 1), who, { seconds: 1 }).then((r) =>
        tally('advance', 0)({ ...r, json: {} }),
      ),
    );
    const answers = await Promise.all(fired);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(answers.find((a) => a.kind === 'advance')?.ok).toBe(true);
    // Settle anything the race left, then count: what left the wallet is what was acknowledged.
    expect((await advance(stage.urls[0]!, who, { seconds: 1 })).status).toBe(200);
    await expectLedgerClean(stage);
    const out = answers
      .filter((a) => a.ok && (a.kind === 'payout' || a.kind === 'withdraw'))
      .reduce((s, a) => s + a.amount, 0);
    if (!onPostgres) return; // PGlite: one process owns the files while the server runs.
    const db = await stage.engine.open();
    const collected = await db.db
      .selectFrom('nullifications')
      .select(['amount_minor', 'status'])
      .where('account_id', '=', who.accountId)
      .execute();
    expect(collected.length).toBe(answers.filter((a) => a.kind === 'refund' && a.ok).length);
    const refundedMinor = collected
      .filter((n) => n.status !== 'awaiting_funds')
      .reduce((s, n) => s + Number(n.amount_minor), 0);
    const awaiting = collected.filter((n) => n.status === 'awaiting_funds');
    // A refund waiting for funds took what the wallet had (it is left with nothing).
    if (awaiting.length > 0) expect(await walletAvailable(who)).toBe(0);
    else expect(await walletAvailable(who)).toBe(21_000 - out - refundedMinor);
    expect(out + refundedMinor).toBeLessThanOrEqual(21_000);
  });

  it('the same payout order sent keyless to two processes at once makes one payout', async () => {
    const who = acct.sameOrder;
    await credit(who, 100_000);
    for (let round = 0; round < 3; round++) {
      const same = await Promise.all(
        [0, 1, 2, 3].map((i) =>
          call(
            urlOf(stage, i),
            who,
            'POST',
            '/api/wallet/payout',
            payoutBody(`so-${round}`, 1_000),
          ),
        ),
      );
      expect(same.filter((a) => a.status !== 200)).toEqual([]);
      expect(
        new Set(same.map((a) => a.json.identifier_payout)).size,
        JSON.stringify(same.map((a) => a.text)),
      ).toBe(1);
      // Another body under one order: one payout, the other refused as a duplicate.
      const two = await Promise.all(
        [1_000, 2_000].map((amount, i) =>
          call(
            urlOf(stage, i),
            who,
            'POST',
            '/api/wallet/payout',
            payoutBody(`sd-${round}`, amount),
          ),
        ),
      );
      expect(two.filter((a) => a.status >= 500)).toEqual([]);
      expect(
        two.filter((a) => a.json.status !== 'failed').length,
        JSON.stringify(two.map((a) => a.text)),
      ).toBe(1);
    }
    await expectLedgerClean(stage);
    if (!onPostgres) return; // PGlite: one process owns the files while the server runs.
    const db = await stage.engine.open();
    const payouts = await db.db
      .selectFrom('payouts')
      .select(['order', 'amount_minor'])
      .where('account_id', '=', who.accountId)
      .execute();
    expect(payouts.length).toBe(6);
    const spent = payouts.reduce((s, p) => s + Number(p.amount_minor), 0);
    expect(await walletAvailable(who)).toBe(100_000 - spent);
  });

  it('one checkout and one mall paid from two processes at once are each captured once', async () => {
    const who = acct.doubleSubmit;
    const other = acct.doubleSubmitStore;
    const base = stage.urls[0]!;
    const checkouts: { id: string; valid: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(base, who, 'POST', '/api/transaction', {
        email: 'payer@example.com',
        order: `ds-${i}`,
        subject: 'double submit',
        amount: 3_000,
      });
      expect(res.status, res.text).toBe(200);
      const q = new URL(String(res.json.url)).searchParams;
      checkouts.push({ id: q.get('id')!, valid: q.get('valid')! });
    }
    const malls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await call(base, who, 'POST', '/api/mall', {
        email: 'payer@example.com',
        payment: 1,
        order: `dm-${i}`,
        urlreturn: 'https://shop.example.com/return',
        merchant: [
          [who.publicToken, 2_000, 'item1', null, `dma-${i}`],
          [other.publicToken, 1_500, 'item2', null, `dmb-${i}`],
        ],
      });
      expect(res.status, res.text).toBe(200);
      malls.push(String(res.json.id));
    }
    const card = {
      method: '1',
      card_number: '4051 8856 0044 6623',
      expiry: cardExpiry,
      cvv: '123',
    };
    await Promise.all([
      ...checkouts.flatMap((c) => [0, 1, 2].map((k) => payCheckout(urlOf(stage, k), c))),
      ...malls.flatMap((id) =>
        [0, 1, 2].map((k) =>
          postForm(urlOf(stage, k), `/gateway/mall/${id}`, card).catch(() => null),
        ),
      ),
    ]);
    // Pay again whatever a busy answer left unpaid, then settle: each sale's money once.
    for (const c of checkouts) await payCheckout(base, c);
    for (const id of malls) await postForm(base, `/gateway/mall/${id}`, card);
    for (const a of [who, other]) expect((await advance(base, a, { seconds: 1 })).status).toBe(200);
    expect(await walletAvailable(who)).toBe(3 * 3_000 + 2 * 2_000);
    expect(await walletAvailable(other)).toBe(2 * 1_500);
    await expectLedgerClean(stage);
    if (!onPostgres) return; // PGlite: one process owns the files while the server runs.
    const db = await stage.engine.open();
    const captures = await sql<{ reference: string; n: string }>`
      SELECT j.reference, COUNT(*)::text AS n FROM journal_entries j JOIN transactions t ON t.id = j.reference
      WHERE j.kind = 'transaction.capture' AND t.account_id IN (${who.accountId}, ${other.accountId})
      GROUP BY j.reference`.execute(db.db);
    expect(captures.rows.length).toBe(3 + 2 * 2);
    expect(captures.rows.filter((r) => r.n !== '1')).toEqual([]);
  });

  it('escrow releases racing chargebacks across processes keep the merchant whole', async () => {
    const who = acct.escrowDispute;
    const sales = await paidSales(who, 'ed', 3, 7_000);
    expect((await advance(stage.urls[0]!, who, { seconds: 1 })).status).toBe(200);
    const answers = await Promise.all(
      sales.flatMap((id, s) => [
        call(urlOf(stage, s), who, 'POST', '/api/escrow', { transactions: sales }),
        call(urlOf(stage, s + 1), who, 'POST', '/api/sandbox/disputes', {
          transaction_id: id,
          amount: 5_000,
          reason: 'fraudulent',
        }),
      ]),
    );
    expect(answers.filter((a) => a.status !== 200).map((a) => a.text)).toEqual([]);
    await expectLedgerClean(stage);
    if (!onPostgres) return; // PGlite: one process owns the files while the server runs.
    // Open chargebacks hold the money inside the merchant's accounts: its total is still every sale.
    let totalMinor = 0n;
    for (const code of ['wallet_available', 'escrow_held', 'dispute_held', 'dispute_debt'])
      totalMinor += await balanceMinor(stage, who.accountId, code);
    expect(totalMinor).toBe(3n * 7_000n);
    expect(await balanceMinor(stage, who.accountId, 'dispute_held')).toBe(3n * 5_000n);
    expect(await balanceMinor(stage, who.accountId, 'escrow_held')).toBe(0n);
  });
});
