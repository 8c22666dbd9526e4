// Issue 10's done-when: every subscription request of the reference (§7 and §8), as a merchant's existing code sends
// it (loose types, the §8 trailing-slash paths, `Sign` computed by the reference's PHP and JS scripts rather than by
// Cobro's own signer), succeeds against a fresh server over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../support/app.ts';
import { cloneTestDatabase } from '../../support/database.ts';
import { freePort } from '../../support/net.ts';
import { referenceSign, type ReferenceScript } from '../../support/reference-sign.ts';
import { startServer, type RunningServer } from '../../../src/server.ts';
import { createAccount } from '../../../src/modules/accounts/service.ts';
import { enrolOverHttp } from './helpers.ts';

let server: RunningServer;
let publicToken: string;
let privateToken: string;
beforeAll(async () => {
  const port = await freePort();
  const config = testConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  });
  server = await startServer(config, { handle: await cloneTestDatabase() });
  const account = await createAccount(server.runtime.ctx, 'Suscripciones Ltda');
  if (!account.ok) throw new Error(account.error);
  ({ publicToken, privateToken } = account.value);
});
afterAll(async () => {
  await server.close();
});

type Json = Record<string, any>;

/** One request as the reference's sample sends it: Bearer + Sign, the JSON body, a GET's query signed. */
async function send(
  script: ReferenceScript,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  body?: Json,
): Promise<{ status: number; json: any }> {
  const [path, query] = url.split('?') as [string, string | undefined];
  const data =
    method === 'GET' ? Object.fromEntries(new URLSearchParams(query ?? '')) : (body ?? {});
  const headers: Record<string, string> = {
    Authorization: `Bearer ${publicToken}`,
    Sign: referenceSign(script, privateToken, decodeURIComponent(path), data),
    ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
  };
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  expect(res.status, `${method} ${url}: ${text}`).toBe(200);
  return { status: res.status, json: JSON.parse(text) };
}

async function enrol(url: string): Promise<void> {
  expect(await enrolOverHttp(server.url, url)).toContain('Tarjeta registrada');
}

describe("the reference collection's subscription requests (§7, §8)", () => {
  it('signs as the reference scripts do (their documented vectors)', () => {
    const key = 'fe551abcef62fcf002dc598922e68f0a';
    const body = {
      email: 'johndoe@example.com',
      name: 'John Doe',
      phone: '923122312',
      address: 'Moneda 101',
      country: 'Chile',
      region: 'Metropolitana',
      city: 'Santiago',
      postal_code: '850000',
      additional_parameters: { parameter_1: 'example' },
    };
    for (const script of ['php', 'js'] as const) {
      expect(referenceSign(script, key, '/api/suclient', body)).toBe(
        'c9c86202b1246f6ebeb080d08b3b99a22d36d0e8cffb7fd4e65af0fea4dd12bb',
      );
      expect(referenceSign(script, key, '/api/wallet')).toBe(
        '4b673d0789f6acbccb2bbe04e7d222f4f84aebe2f1be17dd44d6b6565c7169f1',
      );
    }
  });

  it('all succeed, in the order a merchant runs them', async () => {
    // §8.2: the only documented plan creation (no pricing: a consumption plan, decision 100).
    const plan = (
      await send('php', 'POST', '/api/suplan/', {
        name: 'Test plan',
        description: 'Test Plan',
        url_notify_suscription: 'https://www.example.com/urlnotifysuscription',
        url_notify_payment: 'https://www.example.com/urlnotifypayment',
        url_success_payment: 'https://www.example.com/success',
        url_failed_payment: 'https://www.example.com/failed',
      })
    ).json;
    expect(plan).toEqual({ status: 'success', id: expect.stringMatching(/^pl/) });

    // §7.1 and §8.1 (rut, phone and postal_code as numbers there).
    const client = (
      await send('js', 'POST', '/api/suclient', {
        email: 'johndoe@example.com',
        name: 'John Doe',
        rut: '11111111',
        phone: '923122312',
        address: 'Moneda 101',
        country: 'Chile',
        region: 'Metropolitana',
        city: 'Santiago',
        postal_code: '850000',
        additional_parameters: { parameter_1: 'example', parameter_2: 'example' },
      })
    ).json;
    expect(client).toMatchObject({
      status: 'active',
      id: expect.stringMatching(/^cl/),
      subcriptions: null,
      update_at: null,
    });
    const client2 = (
      await send('php', 'POST', '/api/suclient/', {
        email: 'support@youwebsite.cl',
        name: 'Joe Doe',
        rut: 111111111,
        phone: 923122312,
        address: 'Moneda 101',
        country: 'Chile',
        region: 'Metropolitana',
        city: 'Santiago',
        postal_code: 850000,
      })
    ).json;
    expect(client2).toMatchObject({ status: 'active', rut: '111111111', postal_code: '850000' });

    // §7.2 by id and by e-mail, §7.3, §7.5.
    expect((await send('php', 'GET', `/api/suclient/${client.id}`)).json).toMatchObject({
      id: client.id,
      active_cards: [],
    });
    expect((await send('js', 'GET', '/api/suclient/johndoe@example.com/')).json).toMatchObject({
      id: client.id,
    });
    expect(
      (
        await send('js', 'PUT', `/api/suclient/${client.id}`, {
          name: 'John Doe',
          city: 'Valparaíso',
          postal_code: 2340000,
        })
      ).json,
    ).toMatchObject({ id: client.id, city: 'Valparaíso', postal_code: '2340000' });
    const customers = (await send('php', 'GET', '/api/suclient/customers?page=1&per_page=100'))
      .json;
    expect(customers[0].Customers.map((c: Json) => c.id)).toEqual([client.id, client2.id]);

    // §7.6 and §8.3, then the payer enrols a card on the hosted page.
    const sub = (
      await send('js', 'POST', '/api/sususcription', { plan: plan.id, client: client.id })
    ).json;
    expect(sub).toEqual({
      status: 'register',
      id: expect.stringMatching(/^su/),
      url: expect.stringContaining('/gateway/registrosuscripcion?'),
    });
    const sub2 = (
      await send('php', 'POST', '/api/sususcription/', { plan: plan.id, client: client2.id })
    ).json;
    expect(sub2.status).toBe('register');
    await enrol(sub.url);

    // §7.9, §7.7, §7.8.
    const one = (await send('js', 'GET', `/api/sususcription/${sub.id}`)).json;
    expect(one).toMatchObject({
      id: sub.id,
      status: 'active',
      logs: {
        status: [
          { final_status: 'register' },
          { initial_status: 'register', final_status: 'active' },
        ],
      },
    });
    const card = one.active_cards[0].identifier as string;
    const v1 = (await send('php', 'GET', '/api/sususcription?active=true&page=1&per_page=50')).json;
    expect(v1[0].subscriptions.map((s: Json) => s.id)).toEqual([sub.id]);
    const v3 = (await send('js', 'GET', '/api/sususcriptionv3?register=true&per_page=4000')).json;
    expect(v3[0].subscriptions.map((s: Json) => [s.id, s.estatus])).toEqual([
      [sub2.id, 'register'],
    ]);

    // §7.11 and §8.4 (amount as a string, order as a number, a chosen card).
    const charged = (
      await send('php', 'POST', '/api/sutransaction', {
        suscription: sub.id,
        amount: '10000',
        order: '001',
        description: 'descripcion',
      })
    ).json;
    expect(charged).toMatchObject({
      status: 'success',
      order: '001',
      amount: '10000',
      transaction_id: expect.stringMatching(/^\d+$/),
    });
    const charged2 = (
      await send('js', 'POST', '/api/sutransaction/', {
        suscription: sub.id,
        amount: '2500',
        order: 1568041684,
        description: 'Pedido',
        card,
      })
    ).json;
    expect(charged2).toMatchObject({ status: 'success', order: '1568041684', amount: '2500' });

    // §7.13b, §7.13c.
    expect((await send('js', 'GET', `/api/suplan/${plan.id}`)).json.plans).toMatchObject({
      id: plan.id,
      total_suscription: 2,
      total_suscription_active: 1,
    });
    expect(
      (await send('php', 'GET', '/api/suplan/plans')).json.plans.map((p: Json) => p.id),
    ).toEqual([plan.id]);

    // §7.12: a new card through a new enrolment page; §8.5 removes one by `card`, §7.13 the other by `suscription`.
    const link = (await send('php', 'POST', '/api/suinscriptionscards', { suscription: sub.id }))
      .json;
    expect(link).toMatchObject({ status: 'success', id: sub.id });
    await enrol(link.url);
    const cards = (await send('js', 'GET', `/api/sususcription/${sub.id}/`)).json.active_cards.map(
      (c: Json) => c.identifier as string,
    );
    expect(cards).toHaveLength(2);
    expect((await send('js', 'POST', '/api/suscriptionsdeletecards/', { card })).json).toEqual({
      status: 'Delete',
      card,
    });
    const other = cards.find((c: string) => c !== card)!;
    expect(
      (await send('php', 'POST', '/api/suscriptionsdeletecards', { suscription: other })).json,
    ).toEqual({ status: 'Delete', card: other });

    // §7.10 and §7.4.
    expect((await send('php', 'DELETE', `/api/sususcription/${sub.id}`)).json).toEqual({
      id: sub.id,
      status: 'success',
    });
    expect((await send('js', 'DELETE', '/api/suclient/support@youwebsite.cl')).json).toEqual({
      status: 'success',
      id: client2.id,
    });
  });
});
