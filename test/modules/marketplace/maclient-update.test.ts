import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createClient, createMembership } from './helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('PUT /api/maclient/{id} (Sign) and DELETE /api/maclient/{id}', () => {
  it("updates only what is sent and answers with memberships as an array of objects (the seed's client table)", async () => {
    const id = await createClient(t, merchant);
    const m1 = await createMembership(t, merchant, '1', [[id, '99']]);
    const m2 = await createMembership(t, merchant, '20.5', [[id, 79.5]]);
    t.clock.advanceMs(60_000);
    const res = await t.call(merchant, {
      method: 'PUT',
      url: `/api/maclient/${id}`,
      sign: true,
      body: { bank: { sbif: '0001', type: 3, num: '9999999', rut: '261009617' } },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      id,
      status: 'register',
      name: 'John Doe',
      phone: '923122312',
      email: 'johndoe@example.com',
      bank: { sbif: '0001', type: '3', num: '9999999', rut: '261009617' },
      affiliations: 2,
      created_at: '2026-03-10 12:00:00',
      update_at: '2026-03-10 12:01:00',
      affiliations_details: [
        {
          id: m1.id,
          status: 'not found',
          token: m1.token,
          name: 'market1',
          percentage_affiliation: 1,
          percentage_client: 99,
        },
        {
          id: m2.id,
          status: 'not found',
          token: m2.token,
          name: 'market1',
          percentage_affiliation: 20.5,
          percentage_client: 79.5,
        },
      ],
    });
    const got = (await t.call(merchant, { method: 'GET', url: `/api/maclient/${id}` })).json();
    expect(got).toMatchObject({
      affiliations: 2,
      update_at: '2026-03-10 12:01:00',
      bank: { type: '3', num: '9999999', rut: '261009617' },
    });
    const renamed = await t.call(merchant, {
      method: 'PUT',
      url: `/api/maclient/${id}`,
      sign: true,
      body: { name: 'Jane', phone: '+56 9 1234 5678' },
    });
    expect(renamed.json()).toMatchObject({
      name: 'Jane',
      phone: '+56 9 1234 5678',
      bank: { sbif: '0001', num: '9999999' },
    });
  });

  it('needs a valid Sign', async () => {
    const id = await createClient(t, merchant);
    const missing = await t.call(merchant, {
      method: 'PUT',
      url: `/api/maclient/${id}`,
      body: { name: 'x' },
    });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().message_error).toBe('waiting sign');
    const wrong = await t.call(merchant, {
      method: 'PUT',
      url: `/api/maclient/${id}`,
      body: { name: 'x' },
      headers: { sign: 'ab'.repeat(32) },
    });
    expect(wrong.json().message_error).toBe('invalid sign');
  });

  it('validates the update: seed lengths, account type 1-3, RUT check digit, unknown id', async () => {
    const id = await createClient(t, merchant);
    const bad = await t.call(merchant, {
      method: 'PUT',
      url: `/api/maclient/${id}`,
      sign: true,
      body: { name: 'n'.repeat(51), phone: '1'.repeat(51), bank: { type: 4, rut: '1'.repeat(13) } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toEqual({
      name: 'too long',
      phone: 'too long',
      'bank.type': 'too large',
      'bank.rut': 'too long',
    });
    const rut = await t.call(merchant, {
      method: 'PUT',
      url: `/api/maclient/${id}`,
      sign: true,
      body: { bank: { rut: '11.111.111-2' } },
    });
    expect(rut.json().errors).toEqual({ 'bank.rut': 'invalid' });
    // A 150-character name is fine at creation; the update allows 50 (seed).
    const ok = await t.call(merchant, {
      method: 'PUT',
      url: `/api/maclient/${id}`,
      sign: true,
      body: { name: 'n'.repeat(50) },
    });
    expect(ok.statusCode).toBe(200);
    const unknown = await t.call(merchant, {
      method: 'PUT',
      url: '/api/maclient/ma000000000000000000',
      sign: true,
      body: { name: 'x' },
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('DELETE suspends: {status: suspended, id}, and the client reads back suspended', async () => {
    const id = await createClient(t, merchant);
    const res = await t.call(merchant, { method: 'DELETE', url: `/api/maclient/${id}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'suspended', id });
    expect(
      (await t.call(merchant, { method: 'GET', url: `/api/maclient/${id}` })).json().status,
    ).toBe('suspended');
    const other = await t.createAccount('Other');
    expect((await t.call(other, { method: 'DELETE', url: `/api/maclient/${id}` })).statusCode).toBe(
      404,
    );
    expect(
      (await t.call(merchant, { method: 'DELETE', url: `/api/maclient/${'x'.repeat(21)}` }))
        .statusCode,
    ).toBe(400);
  });
});
