import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createPlan, createSuClient } from './helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

async function subscribe(body: Record<string, unknown>, url = '/api/sususcription') {
  return t.call(merchant, { method: 'POST', url, sign: true, body });
}

describe('POST /api/sususcription (reference §7.6, §8.3)', () => {
  it('registers a subscription and answers the hosted enrolment url', async () => {
    const plan = await createPlan(t, merchant, { name: 'Gold', amount: 9990 });
    const client = await createSuClient(t, merchant, { email: 'sub1@example.com' });
    const res = await subscribe({ plan, client });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['status', 'id', 'url']);
    expect(body.status).toBe('register');
    expect(body.id).toMatch(/^su[0-9a-f]{20}$/);
    expect(body.url).toMatch(
      /^http:\/\/[^/]+\/gateway\/registrosuscripcion\?tipoplan=1&plan=true&token=[0-9a-f]{20}&validacion=[0-9a-f]{10}$/,
    );
    const got = (
      await t.call(merchant, { method: 'GET', url: `/api/sususcription/${body.id}`, sign: true })
    ).json();
    expect(got).toEqual({
      id: body.id,
      status: 'register',
      start: '2026-03-10 12:00:00',
      end: null,
      client: {
        id: client,
        name: 'John Doe',
        email: 'sub1@example.com',
        rut: '11111111',
        phone: '923122312',
        parámetros: [],
        parametros: [],
        additional_parameters: '{"parameter_1":"example","parameter_2":"example"}',
      },
      plan: { id: plan, name: 'Gold', currency: 'CLP' },
      cards: null,
      active_cards: [],
      transactions: [],
      logs: {
        status: [
          { change_date: '2026-03-10 12:00:00', initial_status: null, final_status: 'register' },
        ],
      },
    });
    const planGot = (
      await t.call(merchant, { method: 'GET', url: `/api/suplan/${plan}`, sign: true })
    ).json();
    expect(planGot.plans).toMatchObject({ total_suscription: 1, total_suscription_active: 0 });
    const clientGot = (
      await t.call(merchant, { method: 'GET', url: `/api/suclient/${client}`, sign: true })
    ).json();
    expect(clientGot.subcriptions).toEqual({
      id: body.id,
      created_at: '2026-03-10 12:00:00',
      status: 'register',
      amount: '9990',
      plan: [{ id: plan, name: 'Gold', currency: 'CLP' }],
      cards: [],
      transactions: [],
    });
  });

  it('takes the amount of a variable plan (string or number) and a coupon, on the trailing-slash path', async () => {
    const plan = await createPlan(t, merchant, { name: 'Var', type: 'variable' });
    const client = await createSuClient(t, merchant, { email: 'sub2@example.com' });
    const res = await subscribe(
      { plan, client, amount: '15000', coupon: 'WELCOME' },
      '/api/sususcription/',
    );
    expect(res.json()).toMatchObject({ status: 'register' });
    expect(res.json().url).toContain('tipoplan=2');
    const clientGot = (
      await t.call(merchant, { method: 'GET', url: `/api/suclient/${client}`, sign: true })
    ).json();
    expect(clientGot.subcriptions.amount).toBe('15000');
  });

  it('refuses unknown plans and clients, a missing variable amount and an amount on a fixed plan', async () => {
    const fixed = await createPlan(t, merchant, { name: 'Fix', amount: 1000 });
    const variable = await createPlan(t, merchant, { name: 'Var', type: 'variable' });
    const client = await createSuClient(t, merchant, { email: 'sub3@example.com' });
    const unknown = await subscribe({
      plan: 'pl00000000000000000000',
      client: 'cl00000000000000000000',
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual({ plan: 'not found', client: 'not found' });
    expect((await subscribe({ plan: variable, client })).json().errors).toEqual({
      amount: 'is empty',
    });
    expect((await subscribe({ plan: fixed, client, amount: 5 })).json().errors).toEqual({
      amount: 'not allowed on a fixed plan',
    });
    expect((await subscribe({ plan: fixed })).json().errors).toEqual({ client: 'is empty' });
    const unsigned = await t.call(merchant, {
      method: 'POST',
      url: '/api/sususcription',
      body: { plan: fixed, client },
    });
    expect(unsigned.json().message_error).toBe('waiting sign');
  });
});

describe('lists, one subscription and DELETE (reference §7.7-7.10)', () => {
  it('lists v1 and v3 as top-level arrays, filtered by date and <status>=true; DELETE ends it and logs the move', async () => {
    const lister = await t.createAccount('Lister');
    t.clock.set('2026-06-01T15:00:00Z');
    const plan = await createPlan(t, lister, { name: 'Gold', amount: 9990 });
    const client = await createSuClient(t, lister, { email: 'list@example.com' });
    const first = (
      await t.call(lister, {
        method: 'POST',
        url: '/api/sususcription',
        sign: true,
        body: { plan, client },
      })
    ).json().id;
    t.clock.set('2026-06-02T15:00:00Z');
    const second = (
      await t.call(lister, {
        method: 'POST',
        url: '/api/sususcription',
        sign: true,
        body: { plan, client },
      })
    ).json().id;

    const today = (
      await t.call(lister, { method: 'GET', url: '/api/sususcription', sign: true })
    ).json();
    expect(today).toHaveLength(1);
    expect(today[0].subscriptions.map((s: { id: string }) => s.id)).toEqual([second]);
    expect(today[0].subscriptions[0]).toMatchObject({
      status: 'register',
      last_status_current_payment: 'pending',
      cards: null,
      transactions: [],
    });
    const both = (
      await t.call(lister, {
        method: 'GET',
        url: '/api/sususcription/?date_init=2026-06-01&date_end=2026-06-02',
        sign: true,
      })
    ).json();
    expect(both[0].subscriptions.map((s: { id: string }) => s.id)).toEqual([first, second]);

    t.clock.set('2026-06-02T16:00:00Z');
    const deleted = await t.call(lister, {
      method: 'DELETE',
      url: `/api/sususcription/${first}`,
      sign: true,
    });
    expect(deleted.json()).toEqual({ id: first, status: 'success' });
    const again = await t.call(lister, {
      method: 'DELETE',
      url: `/api/sususcription/${first}/`,
      sign: true,
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().errors).toEqual({ id: 'already delete' });

    const v3 = (
      await t.call(lister, {
        method: 'GET',
        url: '/api/sususcriptionv3?date_init=2026-06-01&date_end=2026-06-02&delete=true',
        sign: true,
      })
    ).json();
    expect(v3[0].subscriptions).toEqual([
      {
        id: first,
        estatus: 'delete',
        start: '2026-06-01 11:00:00',
        end: '2026-06-02 12:00:00',
        client: expect.objectContaining({ id: client, parámetros: [], parametros: [] }),
        plan: { id: plan, name: 'Gold', currency: 'CLP' },
        active_cards: null,
        logs: {
          status: [
            { change_date: '2026-06-01 11:00:00', initial_status: null, final_status: 'register' },
            {
              change_date: '2026-06-02 12:00:00',
              initial_status: 'register',
              final_status: 'delete',
            },
          ],
        },
        paid: [],
      },
    ]);
    const registered = (
      await t.call(lister, {
        method: 'GET',
        url: '/api/sususcriptionv3/?date_init=2026-06-01&date_end=2026-06-02&register=true&per_page=4000',
        sign: true,
      })
    ).json();
    expect(registered[0].subscriptions.map((s: { id: string }) => s.id)).toEqual([second]);
    const tooMany = await t.call(lister, {
      method: 'GET',
      url: '/api/sususcriptionv3?per_page=4001',
      sign: true,
    });
    expect(tooMany.statusCode).toBe(400);
    const foreign = await t.call(merchant, {
      method: 'GET',
      url: `/api/sususcription/${first}`,
      sign: true,
    });
    expect(foreign.statusCode).toBe(404);
  });

  it('deleting a client deletes its live subscriptions', async () => {
    const plan = await createPlan(t, merchant, { name: 'Gold', amount: 9990 });
    const client = await createSuClient(t, merchant, { email: 'leaving@example.com' });
    const id = (await subscribe({ plan, client })).json().id;
    await t.call(merchant, { method: 'DELETE', url: `/api/suclient/${client}`, sign: true });
    const got = (
      await t.call(merchant, { method: 'GET', url: `/api/sususcription/${id}`, sign: true })
    ).json();
    expect(got.status).toBe('delete');
    expect(got.logs.status.at(-1)).toMatchObject({
      initial_status: 'register',
      final_status: 'delete',
    });
  });
});
