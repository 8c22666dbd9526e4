// Card enrolment over HTTP (reference §7.0, §7.12-7.14): the hosted page's form, the CLP 50 check charged and
// refunded in the ledger, activation with its callback in the outbox, new card links and card removal.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { verifyLedger } from '../../../src/platform/ledger/verify.ts';
import { createPlan, createSuClient } from './helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Tienda');
});
afterAll(async () => {
  await t.close();
});

const approvedVisa = { card_number: '4051 8856 0044 6623', expiry: '12/30', cvv: '123' };
const declinedMastercard = { card_number: '5186059559590568', expiry: '12/30', cvv: '123' };

function linkOf(url: string) {
  const u = new URL(url);
  return {
    path: `${u.pathname}${u.search}`,
    token: u.searchParams.get('token')!,
    validacion: u.searchParams.get('validacion')!,
  };
}

async function submitCard(url: string, card: Record<string, string>) {
  const { token, validacion } = linkOf(url);
  return t.app.inject({
    method: 'POST',
    url: '/gateway/registrosuscripcion',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ token, validacion, ...card }).toString(),
  });
}

async function newSubscription(plan: Record<string, unknown> = {}) {
  const planId = await createPlan(t, merchant, {
    name: 'Gold',
    amount: 9990,
    url_notify_suscription: 'http://127.0.0.1:9/su',
    ...plan,
  });
  const client = await createSuClient(t, merchant, {
    email: `c${Math.random().toString(16).slice(2)}@example.com`,
  });
  const res = await t.call(merchant, {
    method: 'POST',
    url: '/api/sususcription',
    sign: true,
    body: { plan: planId, client },
  });
  return { id: res.json().id as string, url: res.json().url as string, plan: planId, client };
}

describe('/gateway/registrosuscripcion', () => {
  it('shows the plan, refuses a declined card, then enrols an approved one and activates the subscription', async () => {
    const sub = await newSubscription();
    const page = await t.app.inject({ method: 'GET', url: linkOf(sub.url).path });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('Tienda');
    expect(page.body).toContain('$9.990');
    expect(page.body).toContain('Registra tu tarjeta');
    expect(page.body).not.toContain('<script');

    const declined = await submitCard(sub.url, declinedMastercard);
    expect(declined.body).toContain('rechazada');
    expect(
      (
        await t.call(merchant, { method: 'GET', url: `/api/sususcription/${sub.id}`, sign: true })
      ).json().status,
    ).toBe('register');

    t.clock.advanceMs(60_000);
    const ok = await submitCard(sub.url, approvedVisa);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('Tarjeta registrada');
    expect(ok.body).not.toContain('4051');
    const got = (
      await t.call(merchant, { method: 'GET', url: `/api/sususcription/${sub.id}`, sign: true })
    ).json();
    expect(got.status).toBe('active');
    expect(got.cards).toEqual({ last_4_digits: 'XXXXXXXXXXXX6623', card_type: 'Visa' });
    expect(got.active_cards).toEqual([
      {
        last_4_digits: 'XXXXXXXXXXXX6623',
        identifier: expect.stringMatching(/^sure[0-9a-f]{20}$/),
        card_type: 'Visa',
        register: '2026-03-10 12:01:00',
      },
    ]);
    expect(got.logs.status).toEqual([
      { change_date: '2026-03-10 12:00:00', initial_status: null, final_status: 'register' },
      { change_date: '2026-03-10 12:01:00', initial_status: 'register', final_status: 'active' },
    ]);
    const client = (
      await t.call(merchant, { method: 'GET', url: `/api/suclient/${sub.client}`, sign: true })
    ).json();
    expect(client.active_cards).toEqual(got.active_cards);
    expect(client.subcriptions).toMatchObject({
      id: sub.id,
      status: 'active',
      cards: [{ last_4_digits: 'XXXXXXXXXXXX6623', card_type: 'Visa' }],
    });
    const plan = (
      await t.call(merchant, { method: 'GET', url: `/api/suplan/${sub.plan}`, sign: true })
    ).json();
    expect(plan.plans).toMatchObject({ total_suscription: 1, total_suscription_active: 1 });

    // The activation callback is in the outbox, with the reference's payload.
    const callbacks = await t.ctx.db
      .selectFrom('notifications')
      .select(['url', 'event_type', 'payload'])
      .where('account_id', '=', merchant.id)
      .execute();
    expect(
      callbacks.map((c) => ({
        ...c,
        payload: typeof c.payload === 'string' ? JSON.parse(c.payload) : c.payload,
      })),
    ).toEqual([
      {
        url: 'http://127.0.0.1:9/su',
        event_type: 'subscription.activation',
        payload: { id: sub.id, status: 'active' },
      },
    ]);
    // The CLP 50 check: charged and refunded, the ledger balanced.
    const journals = await t.ctx.db
      .selectFrom('journal_entries')
      .select(['kind'])
      .where('kind', 'like', 'subscription.%')
      .orderBy('created_at')
      .execute();
    expect(journals.map((j) => j.kind).sort()).toEqual([
      'subscription.verification',
      'subscription.verification_refund',
    ]);
    expect((await verifyLedger(t.ctx.db)).ok).toBe(true);

    // The link is spent: opening it again shows the result, posting again enrols nothing more.
    expect((await t.app.inject({ method: 'GET', url: linkOf(sub.url).path })).body).toContain(
      'Tarjeta registrada',
    );
    await submitCard(sub.url, approvedVisa);
    expect(
      await t.ctx.db
        .selectFrom('su_cards')
        .select('id')
        .where('subscription_id', '=', sub.id)
        .execute(),
    ).toHaveLength(1);
  });

  it('answers 404 for a forged link and shows a closed page for a deleted subscription', async () => {
    const sub = await newSubscription();
    const { token } = linkOf(sub.url);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `/gateway/registrosuscripcion?token=${token}&validacion=0000000000`,
        })
      ).statusCode,
    ).toBe(404);
    await t.call(merchant, { method: 'DELETE', url: `/api/sususcription/${sub.id}`, sign: true });
    const closed = await submitCard(sub.url, approvedVisa);
    expect(closed.body).toContain('ya no está vigente');
    expect(
      await t.ctx.db
        .selectFrom('su_cards')
        .select('id')
        .where('subscription_id', '=', sub.id)
        .execute(),
    ).toHaveLength(0);
  });
});

describe('POST /api/suinscriptionscards and /api/suscriptionsdeletecards (reference §7.12, §7.13, §8.5)', () => {
  it('gives a new link whose card becomes the one charged, and removes cards by `card` or `suscription`', async () => {
    const sub = await newSubscription();
    await submitCard(sub.url, approvedVisa);
    const link = await t.call(merchant, {
      method: 'POST',
      url: '/api/suinscriptionscards/',
      sign: true,
      body: { suscription: sub.id },
    });
    expect(link.json()).toEqual({
      status: 'success',
      id: sub.id,
      url: expect.stringMatching(
        /\/gateway\/registrosuscripcion\?tipoplan=1&plan=true&token=[0-9a-f]{20}&validacion=[0-9a-f]{10}$/,
      ),
    });
    t.clock.advanceMs(60_000);
    await submitCard(link.json().url, {
      card_number: '4051886000056590',
      expiry: '11/29',
      cvv: '123',
    });
    const got = (
      await t.call(merchant, { method: 'GET', url: `/api/sususcription/${sub.id}`, sign: true })
    ).json();
    expect(got.cards).toEqual({ last_4_digits: 'XXXXXXXXXXXX6590', card_type: 'Visa' });
    expect(got.active_cards.map((c: { last_4_digits: string }) => c.last_4_digits)).toEqual([
      'XXXXXXXXXXXX6590',
      'XXXXXXXXXXXX6623',
    ]);
    expect(got.logs.status).toHaveLength(2);

    const [newest, oldest] = got.active_cards as Array<{ identifier: string }>;
    const removed = await t.call(merchant, {
      method: 'POST',
      url: '/api/suscriptionsdeletecards',
      sign: true,
      body: { card: newest!.identifier },
    });
    expect(removed.json()).toEqual({ status: 'Delete', card: newest!.identifier });
    const alias = await t.call(merchant, {
      method: 'POST',
      url: '/api/suscriptionsdeletecards/',
      sign: true,
      body: { suscription: oldest!.identifier },
    });
    expect(alias.json()).toEqual({ status: 'Delete', card: oldest!.identifier });
    const again = await t.call(merchant, {
      method: 'POST',
      url: '/api/suscriptionsdeletecards',
      sign: true,
      body: { card: oldest!.identifier },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ status: 'failed', type: 'card', message_error: 'is not valid' });
    expect(
      (
        await t.call(merchant, { method: 'GET', url: `/api/sususcription/${sub.id}`, sign: true })
      ).json(),
    ).toMatchObject({ cards: null, active_cards: [] });

    const unknown = await t.call(merchant, {
      method: 'POST',
      url: '/api/suinscriptionscards',
      sign: true,
      body: { suscription: 'su00000000000000000000' },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('keeps no card number or security code anywhere in the database', async () => {
    const dump = await sql<{ t: string | null }>`SELECT string_agg(x::text, ' ') AS t FROM (
      SELECT row_to_json(c)::text AS x FROM su_cards c UNION ALL SELECT row_to_json(e)::text FROM su_enrolments e
      UNION ALL SELECT row_to_json(n)::text FROM notifications n UNION ALL SELECT row_to_json(j)::text FROM journal_entries j) all_rows`.execute(
      t.ctx.db,
    );
    const text = dump.rows[0]?.t ?? '';
    expect(text).toContain('6623');
    for (const pan of [
      '4051885600446623',
      '4051 8856 0044 6623',
      '4051886000056590',
      '5186059559590568',
    ])
      expect(text).not.toContain(pan);
    expect(text).not.toMatch(/"cvv"/);
  });
});
