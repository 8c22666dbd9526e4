import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createSuClient, sampleClient } from './helpers.ts';

let t: TestApp;
let merchant: TestAccount;
let other: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
  other = await t.createAccount('Other');
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/suclient (reference §7.1, §8.1)', () => {
  it('creates a client and answers in the reference shape: date-only created_at, null update_at, `subcriptions` null', async () => {
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/suclient',
      sign: true,
      body: sampleClient,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.id).toMatch(/^cl[0-9a-f]{20}$/);
    expect(body).toEqual({
      status: 'active',
      id: body.id,
      rut: '11111111',
      name: 'John Doe',
      phone: '923122312',
      email: 'johndoe@example.com',
      address: 'Moneda 101',
      country: 'Chile',
      region: 'Metropolitana',
      city: 'Santiago',
      postal_code: '850000',
      created_at: '2026-03-10',
      update_at: null,
      subcriptions: null,
      additional_parameters: { parameter_1: 'example', parameter_2: 'example' },
    });
    expect(Object.keys(body)).toEqual([
      'status',
      'id',
      'rut',
      'name',
      'phone',
      'email',
      'address',
      'country',
      'region',
      'city',
      'postal_code',
      'created_at',
      'update_at',
      'subcriptions',
      'additional_parameters',
    ]);
  });

  it('accepts the trailing-slash path of §8 and loose types (rut, phone and postal_code as numbers)', async () => {
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/suclient/',
      sign: true,
      body: {
        email: 'loose@example.com',
        name: 'Loose',
        rut: 111111111,
        phone: 923122312,
        postal_code: 850000,
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      rut: '111111111',
      phone: '923122312',
      postal_code: '850000',
      address: null,
      additional_parameters: {},
    });
  });

  it('refuses bad input with field errors and writes nothing', async () => {
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/suclient',
      sign: true,
      body: { email: 'not-an-email', name: 'n'.repeat(81), rut: '1'.repeat(13) },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Unprocessable Entity' });
    expect(Object.keys(res.json().errors).sort()).toEqual(['email', 'name', 'phone', 'rut']);
    const big = await t.call(merchant, {
      method: 'POST',
      url: '/api/suclient',
      sign: true,
      body: {
        ...sampleClient,
        email: 'big@example.com',
        additional_parameters: { p: 'x'.repeat(4000) },
      },
    });
    expect(big.json().errors).toEqual({ additional_parameters: 'too long' });
    expect(
      (await t.call(merchant, { method: 'GET', url: '/api/suclient/big@example.com', sign: true }))
        .statusCode,
    ).toBe(404);
  });

  it('keeps one live client per e-mail', async () => {
    await createSuClient(t, merchant, { email: 'dup@example.com' });
    const again = await t.call(merchant, {
      method: 'POST',
      url: '/api/suclient',
      sign: true,
      body: { ...sampleClient, email: 'dup@example.com' },
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().errors).toEqual({ email: 'already registered' });
  });

  it('needs Bearer and Sign', async () => {
    const unsigned = await t.call(merchant, {
      method: 'POST',
      url: '/api/suclient',
      body: sampleClient,
    });
    expect(unsigned.statusCode).toBe(401);
    expect(unsigned.json().message_error).toBe('waiting sign');
    const wrong = await t.call(merchant, {
      method: 'GET',
      url: '/api/suplan/plans',
      headers: { sign: 'ab'.repeat(32) },
    });
    expect(wrong.json().message_error).toBe('invalid sign');
    const anonymous = await t.call(null, { method: 'GET', url: '/api/suclient/customers' });
    expect(anonymous.json().message_error).toBe('waiting token public');
  });
});

describe('GET, PUT, DELETE /api/suclient/{id or email} (reference §7.2-7.4)', () => {
  it('reads by id and by e-mail, with `active_cards` and `subcriptions`', async () => {
    const id = await createSuClient(t, merchant, { email: 'read@example.com' });
    const byId = await t.call(merchant, { method: 'GET', url: `/api/suclient/${id}`, sign: true });
    expect(byId.statusCode).toBe(200);
    expect(byId.json()).toEqual({
      status: 'active',
      id,
      rut: '11111111',
      name: 'John Doe',
      phone: '923122312',
      email: 'read@example.com',
      address: 'Moneda 101',
      city: 'Santiago',
      region: 'Metropolitana',
      country: 'Chile',
      postal_code: '850000',
      created_at: '2026-03-10 12:00:00',
      update_at: null,
      active_cards: [],
      additional_parameters: { parameter_1: 'example', parameter_2: 'example' },
      subcriptions: null,
    });
    const byEmail = await t.call(merchant, {
      method: 'GET',
      url: '/api/suclient/read@example.com/',
      sign: true,
    });
    expect(byEmail.json()).toEqual(byId.json());
    // Another merchant's client does not exist for this one.
    const foreign = await t.call(other, { method: 'GET', url: `/api/suclient/${id}`, sign: true });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({
      status: 'failed',
      type: 'Not Found',
      id: 'is not valid',
    });
  });

  it('updates only what is sent; the answer has no rut nor active_cards and an unpadded update_at', async () => {
    const id = await createSuClient(t, merchant, { email: 'put@example.com' });
    t.clock.set('2026-04-02T11:32:52Z');
    const res = await t.call(merchant, {
      method: 'PUT',
      url: `/api/suclient/${id}`,
      sign: true,
      body: { name: 'Jane', city: 'Valparaíso', postal_code: 2340000 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'active',
      id,
      name: 'Jane',
      phone: '923122312',
      email: 'put@example.com',
      address: 'Moneda 101',
      country: 'Chile',
      region: 'Metropolitana',
      city: 'Valparaíso',
      postal_code: '2340000',
      created_at: '2026-03-10 12:00:00',
      update_at: '2026-4-2 08:32:52',
      additional_parameters: { parameter_1: 'example', parameter_2: 'example' },
      subcriptions: null,
    });
    const got = (
      await t.call(merchant, { method: 'GET', url: '/api/suclient/put@example.com', sign: true })
    ).json();
    expect(got).toMatchObject({ name: 'Jane', update_at: '2026-04-02 08:32:52', rut: '11111111' });
    const unknown = await t.call(merchant, {
      method: 'PUT',
      url: '/api/suclient/cl00000000000000000000',
      sign: true,
      body: { name: 'x' },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('deletes by e-mail; the client is gone and its e-mail free again', async () => {
    const id = await createSuClient(t, merchant, { email: 'gone@example.com' });
    const res = await t.call(merchant, {
      method: 'DELETE',
      url: '/api/suclient/gone@example.com',
      sign: true,
    });
    expect(res.json()).toEqual({ status: 'success', id });
    expect(
      (await t.call(merchant, { method: 'GET', url: `/api/suclient/${id}`, sign: true }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.call(merchant, { method: 'DELETE', url: `/api/suclient/${id}/`, sign: true }))
        .statusCode,
    ).toBe(404);
    await createSuClient(t, merchant, { email: 'gone@example.com' });
  });
});

describe('GET /api/suclient/customers (reference §7.5)', () => {
  it('lists the clients created in the date range as [{"Customers":[...]}], today by default, paged up to 100', async () => {
    const lister = await t.createAccount('Lister');
    t.clock.set('2026-05-01T15:00:00Z');
    const first = await createSuClient(t, lister, { email: 'a@example.com' });
    t.clock.set('2026-05-03T15:00:00Z');
    const second = await createSuClient(t, lister, { email: 'b@example.com' });
    const third = await createSuClient(t, lister, { email: 'c@example.com' });
    const today = await t.call(lister, {
      method: 'GET',
      url: '/api/suclient/customers',
      sign: true,
    });
    expect(today.statusCode).toBe(200);
    expect(
      today.json().map((g: { Customers: Array<{ id: string }> }) => g.Customers.map((c) => c.id)),
    ).toEqual([[second, third]]);
    const range = await t.call(lister, {
      method: 'GET',
      url: '/api/suclient/customers/?date_init=2026-05-01&date_end=2026-05-03&page=2&per_page=2',
      sign: true,
    });
    expect(range.json()[0].Customers.map((c: { id: string }) => c.id)).toEqual([third]);
    const all = await t.call(lister, {
      method: 'GET',
      url: '/api/suclient/customers?date_init=2026-05-01&date_end=2026-05-03',
      sign: true,
    });
    expect(all.json()[0].Customers.map((c: { id: string }) => c.id)).toEqual([
      first,
      second,
      third,
    ]);
    expect(all.json()[0].Customers[0]).toMatchObject({
      email: 'a@example.com',
      active_cards: [],
      subcriptions: null,
    });
    const tooMany = await t.call(lister, {
      method: 'GET',
      url: '/api/suclient/customers?per_page=101',
      sign: true,
    });
    expect(tooMany.statusCode).toBe(400);
    const badDate = await t.call(lister, {
      method: 'GET',
      url: '/api/suclient/customers?date_init=2026-13-01',
      sign: true,
    });
    expect(badDate.json().errors).toEqual({ date_init: 'invalid' });
  });
});
