import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { sampleClient } from './helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/maclient and GET /api/maclient/{id}', () => {
  it('answers the seed\'s client: register, bank.type as a string (seed table), 0 memberships, update_at "null"', async () => {
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/maclient',
      body: sampleClient,
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.id).toMatch(/^ma[0-9a-f]{18}$/);
    expect(body).toEqual({
      id: body.id,
      status: 'register',
      name: 'John Doe',
      phone: '923122312',
      email: 'johndoe@example.com',
      bank: { sbif: '0001', rut: '111111111', type: '1', num: '12312313121' },
      affiliations: 0,
      created_at: '2026-03-10 12:00:00',
      update_at: 'null',
    });
    expect(Object.keys(body)).toEqual([
      'id',
      'status',
      'name',
      'phone',
      'email',
      'bank',
      'affiliations',
      'created_at',
      'update_at',
    ]);
    const got = await t.call(merchant, { method: 'GET', url: `/api/maclient/${body.id}` });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(body);
  });

  it('accepts a RUT with dots and dash, a numeric account type and ignores unknown fields', async () => {
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/maclient',
      body: {
        ...sampleClient,
        bank: { sbif: '0012', type: 3, num: '123', rut: '11.111.111-1' },
        extra: 'dropped',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().bank).toEqual({ sbif: '0012', rut: '11.111.111-1', type: '3', num: '123' });
  });

  it('refuses a RUT whose check digit is wrong and an unknown bank code', async () => {
    const res = await t.call(merchant, {
      method: 'POST',
      url: '/api/maclient',
      body: { ...sampleClient, bank: { ...sampleClient.bank, rut: '111111112', sbif: '9999' } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      status: 'failed',
      type: 'Unprocessable Entity',
      errors: { 'bank.rut': 'invalid', 'bank.sbif': 'invalid' },
    });
  });

  it('enforces every required field and the seed lengths', async () => {
    const empty = await t.call(merchant, { method: 'POST', url: '/api/maclient', body: {} });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().errors).toMatchObject({
      email: 'is empty',
      name: 'is empty',
      phone: 'is empty',
      bank: 'is empty',
    });
    const long = await t.call(merchant, {
      method: 'POST',
      url: '/api/maclient',
      body: {
        email: `${'a'.repeat(45)}@x.com`,
        name: 'n'.repeat(151),
        phone: '1'.repeat(13),
        bank: { sbif: '000001', type: '4', num: '1'.repeat(41), rut: '1'.repeat(13) },
      },
    });
    expect(long.statusCode).toBe(400);
    expect(long.json().errors).toEqual({
      email: 'too long',
      name: 'too long',
      phone: 'too long',
      'bank.sbif': 'too long',
      'bank.type': 'invalid',
      'bank.num': 'too long',
      'bank.rut': 'too long',
    });
    const badEmail = await t.call(merchant, {
      method: 'POST',
      url: '/api/maclient',
      body: { ...sampleClient, email: 'not-an-email' },
    });
    expect(badEmail.json().errors).toEqual({ email: 'invalid' });
  });

  it("hides other merchants' clients and checks the path length", async () => {
    const id = (
      await t.call(merchant, { method: 'POST', url: '/api/maclient', body: sampleClient })
    ).json().id;
    const other = await t.createAccount('Other');
    const res = await t.call(other, { method: 'GET', url: `/api/maclient/${id}` });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 'failed', type: 'Not Found', id: 'is not valid' });
    const long = await t.call(merchant, { method: 'GET', url: `/api/maclient/${'a'.repeat(21)}` });
    expect(long.statusCode).toBe(400);
    expect(long.json().errors).toEqual({ id: 'too long' });
    expect((await t.call(null, { method: 'GET', url: `/api/maclient/${id}` })).statusCode).toBe(
      401,
    );
  });
});
