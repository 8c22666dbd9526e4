// The repository's compatibility cases for ../shared/spec/reference-service-facts.md: each case sends a request as
// the reference documents it (its example bodies, Bearer alone where its cURL sends no Sign, `Sign` computed by the
// reference's own PHP and JS scripts, test/support/reference-sign.ts) and checks the answer's shape as the facts
// record it, naming the section. Shapes the module tests already pin field for field are not repeated; when the
// facts file gains a shape, its case goes here, so the next gap is found in this suite first (decision 440).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { referenceSign, type ReferenceScript } from '../support/reference-sign.ts';
import { setAccountUrls } from '../../src/modules/accounts/callback-urls.ts';
import { payByCard } from '../modules/transactions/helpers.ts';

let t: TestApp;
let merchant: TestAccount;
let store: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Compat merchant');
  store = await t.createAccount('Compat store');
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, any>;

/** A request as an integrator's existing code sends it; `sign` names the reference script that computes `Sign`. */
async function send(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  options: { body?: Json; sign?: ReferenceScript; signedPath?: string; account?: TestAccount } = {},
) {
  const account = options.account ?? merchant;
  const [path, query] = url.split('?') as [string, string | undefined];
  const data =
    method === 'GET' ? Object.fromEntries(new URLSearchParams(query ?? '')) : (options.body ?? {});
  const headers: Record<string, string> = {
    accept: 'application/json, text/plain, */*',
    authorization: `Bearer ${account.publicToken}`,
  };
  if (options.sign !== undefined)
    headers.sign = referenceSign(
      options.sign,
      account.privateToken,
      options.signedPath ?? path,
      data,
    );
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return t.app.inject({
    method,
    url,
    headers,
    ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
  });
}

const types = (o: Json) =>
  Object.fromEntries(
    Object.entries(o).map(([k, v]) => [
      k,
      v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v,
    ]),
  );

describe('§1.2 GET /api/transaction/{id}: the payment object', () => {
  it('carries additional_parameters.identificador, banco and numero_cuenta on a card payment, null when unknown', async () => {
    const { created } = await payByCard(t, merchant, {
      order: 'compat-1',
      amount: 25000,
      additional_parameters: { parameters1: 'keyValue', order_ext: 'fff-777' },
    });
    const p = (await send('GET', `/api/transaction/${created.id}`)).json().payment;
    expect(types(p)).toMatchObject({
      start: 'string',
      end: 'string',
      media: 'string',
      transaction_id: 'number',
      payment_key: 'string',
      transaction_key: 'string',
      deposit_date: 'string',
      verification_key: 'string',
      authorization_code: 'string',
      last_4_digits: 'string',
      installments: 'number',
      card_type: 'string',
      additional_parameters: 'object',
      currency: 'string',
    });
    expect(p.additional_parameters).toMatchObject({
      identificador: null,
      banco: null,
      numero_cuenta: null,
      parameters1: 'keyValue',
      order_ext: 'fff-777',
      network: { ip_address: expect.any(String) },
    });
    // §1.3: the list's payment has the same keys without network.
    const listed = (await send('GET', '/api/transaction'))
      .json()
      .transaction.find((x: Json) => x.order === 'compat-1');
    expect(listed.payment.additional_parameters).toEqual({
      identificador: null,
      banco: null,
      numero_cuenta: null,
      parameters1: 'keyValue',
      order_ext: 'fff-777',
    });
  });
});

describe('§3.3 the nullification callback', () => {
  it("carries the transaction id in both id and id_transaction (the SDK's verifyCallback rule), the refund in id_nullification", async () => {
    expect(
      (
        await setAccountUrls(t.ctx, merchant.id, {
          nullification: 'https://shop.example.com/refunds',
        })
      ).ok,
    ).toBe(true);
    const { created } = await payByCard(t, merchant, { order: '367734544', amount: 10000 });
    const body = { id: created.id, amount: 7000, subject: 'anulación transacción' };
    expect((await send('POST', '/api/nullification', { body, sign: 'php' })).json().status).toBe(
      'success',
    );
    const rows = await t.ctx.db
      .selectFrom('notifications')
      .select('payload')
      .where('account_id', '=', merchant.id)
      .where('event_type', '=', 'nullification.result')
      .execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const { payload } of rows as Array<{ payload: Json }>) {
      // The outbox keeps the payload as JSONB (its own key order); delivery order is pinned by nullification-callbacks.test.ts.
      expect(Object.keys(payload).sort()).toEqual([
        'fecha',
        'id',
        'id_nullification',
        'id_transaction',
        'monto',
        'ordencompra',
        'status',
      ]);
      expect(payload).toMatchObject({
        id: created.id,
        id_transaction: created.id,
        ordencompra: '367734544',
        monto: 7000,
        id_nullification: expect.stringMatching(/^nul/),
      });
      expect(payload.fecha).toMatch(/^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
    }
    // §3.2: GET /api/nullification/{id} answers {nullify} for the transaction id.
    expect(
      Object.keys((await send('GET', `/api/nullification/${created.id}`, { sign: 'js' })).json()),
    ).toEqual(['nullify']);
  });
});

describe('§5 mall', () => {
  it("§5.2 GET /api/mall/{id} answers its owner with Bearer alone (the cURL example and the SDK), and a missing id with §14's E3", async () => {
    const body = {
      email: 'johndoe@example.com',
      payment: 1,
      order: 123,
      urlreturn: 'https://shop.example.com/return',
      merchant: [[store.publicToken, '30000', 'item1', null, '4545']],
    };
    const created = (await send('POST', '/api/mall', { body, sign: 'php' })).json();
    expect(types(created)).toEqual({
      status: 'string',
      id: 'string',
      individual_orders: 'array',
      url: 'string',
    });
    expect(Object.keys(created.individual_orders[0])).toEqual([
      'merchant',
      'amount',
      'subject',
      'event',
      'identificador',
      'individual_order',
    ]);
    expect(JSON.stringify(created)).not.toContain(store.publicToken);
    const got = await send('GET', `/api/mall/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({
      status: 'pending',
      id: created.id,
      amount: '30000',
      merchant: [{ name: 'Compat store', amount: 30000, subject: 'item1' }],
    });
    expect((await send('GET', `/api/mall/${created.id}`, { sign: 'js' })).statusCode).toBe(200);
    const missing = await send('GET', '/api/mall/malld200058ab44739ddee2adcd2f5');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({
      status: 'failed',
      type: 'Not Found',
      id: 'is not valid',
    });
  });
});

describe('§7 and §8 subscriptions', () => {
  it("§7.2 GET /api/suclient/{email}: a Sign over the path as sent (%40, the SDK's encodeURIComponent of what it sends) or decoded", async () => {
    const client = {
      email: 'compat.client@example.com',
      name: 'John Doe',
      rut: '11111111',
      phone: '923122312',
    };
    expect((await send('POST', '/api/suclient', { body: client, sign: 'php' })).statusCode).toBe(
      200,
    );
    const url = '/api/suclient/compat.client%40example.com';
    for (const [script, signedPath] of [
      ['js', url],
      ['php', url],
      ['js', '/api/suclient/compat.client@example.com'],
    ] as const) {
      const res = await send('GET', url, { sign: script, signedPath });
      expect(res.statusCode, `${script} over ${signedPath}`).toBe(200);
      expect(res.json()).toMatchObject({ email: client.email, name: 'John Doe' });
    }
  });

  it('§7.9 GET /api/sususcription/{id}: the client carries parámetros and parametros', async () => {
    const plan = (
      await send('POST', '/api/suplan/', { body: { name: 'compat plan' }, sign: 'js' })
    ).json().id as string;
    const client = (
      await send('POST', '/api/suclient/', {
        body: { email: 'compat.sub@example.com', name: 'Sub', phone: '923122312' },
        sign: 'js',
      })
    ).json().id as string;
    const sub = (
      await send('POST', '/api/sususcription/', { body: { plan, client }, sign: 'php' })
    ).json();
    expect(types(sub)).toEqual({ status: 'string', id: 'string', url: 'string' });
    const got = (await send('GET', `/api/sususcription/${sub.id}`, { sign: 'php' })).json();
    expect(Object.keys(got)).toEqual(
      expect.arrayContaining([
        'id',
        'status',
        'start',
        'end',
        'client',
        'plan',
        'cards',
        'active_cards',
        'transactions',
        'logs',
      ]),
    );
    expect(got.client).toMatchObject({
      id: client,
      parámetros: [],
      parametros: [],
      additional_parameters: '',
    });
    expect(got.plan).toEqual({ id: plan, name: 'compat plan', currency: 'CLP' });
  });

  it('§8.5 POST /api/suscriptionsdeletecards/: an unknown card is the special 400 shape', async () => {
    const res = await send('POST', '/api/suscriptionsdeletecards/', {
      body: { card: 'surec804a8ed60c0a8cb8839' },
      sign: 'js',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      status: 'failed',
      type: 'card',
      message_error: 'is not valid',
    });
  });
});

describe('§4.8, §8: every trailing-slash operation the reference documents is routed and in the OpenAPI document', () => {
  it('lists them', async () => {
    const doc = (await send('GET', '/api/openapi.json')).json();
    for (const path of [
      '/api/transaction/',
      '/api/suclient/',
      '/api/suplan/',
      '/api/sususcription/',
      '/api/sutransaction/',
      '/api/suscriptionsdeletecards/',
    ]) {
      expect(doc.paths[path]?.post, path).toBeDefined();
    }
    const created = await send('POST', '/api/transaction/', {
      body: { email: 'johndoe@example.com', order: 'compat-slash', subject: 'x', amount: 1000 },
    });
    expect(types(created.json())).toEqual({ status: 'string', id: 'string', url: 'string' });
  });
});

describe('§14.2 error bodies', () => {
  it('answers E2 without a token and E3 for an unknown transaction', async () => {
    const noToken = await t.app.inject({
      method: 'GET',
      url: '/api/transaction/trx3b4d77b43acd9a720',
    });
    expect(noToken.statusCode).toBe(401);
    expect(noToken.json()).toMatchObject({ status: 'failed', type: 'Unauthorized' });
    const unknown = await send('GET', '/api/transaction/trx3b4d77b43acd9a720');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({
      status: 'failed',
      type: 'Not Found',
      id: 'is not valid',
    });
  });
});
