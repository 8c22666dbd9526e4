import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createClient } from './helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const post = (body: unknown, who: TestAccount = merchant) =>
  t.call(who, { method: 'POST', url: '/api/maaffiliation', body });

describe('POST, GET and DELETE /api/maaffiliation', () => {
  it('reproduces the reference sample: register, 64-hex token, two-decimal percentages', async () => {
    const client = await createClient(t, merchant, { name: 'name' });
    const res = await post({ name: 'name', percentage: '20', affiliation: [[client, '80']] });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.id).toMatch(/^ma[0-9a-f]{18}$/);
    expect(body.token).toMatch(/^[0-9a-f]{64}$/);
    expect(body).toEqual({
      id: body.id,
      status: 'register',
      name: 'name',
      token: body.token,
      percentage: '20.00',
      affiliations: [{ id: client, name: 'name', percentage: '80.00' }],
    });
    expect(Object.keys(body)).toEqual([
      'id',
      'status',
      'name',
      'token',
      'percentage',
      'affiliations',
    ]);
    expect(
      (await t.call(merchant, { method: 'GET', url: `/api/maaffiliation/${body.id}` })).json(),
    ).toEqual(body);
    expect(
      (await t.call(merchant, { method: 'GET', url: `/api/maclient/${client}` })).json()
        .affiliations,
    ).toBe(1);
  });

  it('splits among several clients with decimals and numbers, keeping the order given', async () => {
    const a = await createClient(t, merchant, { name: 'A' });
    const b = await createClient(t, merchant, { name: 'B' });
    const res = await post({
      name: 'two',
      percentage: 10.25,
      affiliation: [
        [b, 44.75],
        [a, '45'],
      ],
    });
    expect(res.json()).toMatchObject({
      percentage: '10.25',
      affiliations: [
        { id: b, name: 'B', percentage: '44.75' },
        { id: a, name: 'A', percentage: '45.00' },
      ],
    });
  });

  it('refuses percentages that do not add up to exactly 100, or have more than two decimals', async () => {
    const a = await createClient(t, merchant);
    const over = await post({ name: 'x', percentage: '20', affiliation: [[a, '80.01']] });
    expect(over.statusCode).toBe(400);
    expect(over.json().errors.percentage).toMatch(/100\.01/);
    const under = await post({ name: 'x', percentage: '19.99', affiliation: [[a, '80']] });
    expect(under.statusCode).toBe(400);
    const precise = await post({ name: 'x', percentage: '20.005', affiliation: [[a, '79.995']] });
    expect(precise.json().errors).toEqual({ percentage: 'invalid' });
    const zero = await post({ name: 'x', percentage: '100', affiliation: [[a, '0']] });
    expect(zero.json().errors).toEqual({ 'affiliation.0.1': 'invalid' });
  });

  it("refuses malformed pairs, repeated and unknown clients, and other merchants' clients", async () => {
    const a = await createClient(t, merchant);
    const malformed = await post({ name: 'x', percentage: '20', affiliation: [[a]] });
    expect(malformed.json().errors).toEqual({ 'affiliation.0': 'invalid' });
    const repeated = await post({
      name: 'x',
      percentage: '20',
      affiliation: [
        [a, '40'],
        [a, '40'],
      ],
    });
    expect(repeated.json().errors).toEqual({ 'affiliation.1.0': 'repeated' });
    const unknown = await post({
      name: 'x',
      percentage: '20',
      affiliation: [['ma000000000000000000', '80']],
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual({ 'affiliation.0.0': 'not found' });
    const other = await t.createAccount('Other');
    const foreign = await post({ name: 'x', percentage: '20', affiliation: [[a, '80']] }, other);
    expect(foreign.json().errors).toEqual({ 'affiliation.0.0': 'not found' });
    const empty = await post({});
    expect(empty.json().errors).toMatchObject({
      name: 'is empty',
      percentage: 'is empty',
      affiliation: 'is empty',
    });
    const tooMany = await post({
      name: 'x',
      percentage: '0',
      affiliation: Array.from({ length: 26 }, (_, i) => [`ma${i}`, '1']),
    });
    expect(tooMany.json().errors).toEqual({ affiliation: 'invalid' });
    const longName = await post({
      name: 'n'.repeat(81),
      percentage: '20',
      affiliation: [[a, '80']],
    });
    expect(longName.json().errors).toEqual({ name: 'too long' });
  });

  it('refuses a suspended client as a business rule (HTTP 200, status failed)', async () => {
    const a = await createClient(t, merchant);
    await t.call(merchant, { method: 'DELETE', url: `/api/maclient/${a}` });
    const res = await post({ name: 'x', percentage: '20', affiliation: [[a, '80']] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'failed',
      type: 'client_suspended',
      message_error: `client ${a} is suspended and cannot join a membership`,
    });
  });

  it('DELETE suspends the membership; GET shows it; unknown ids are 404', async () => {
    const a = await createClient(t, merchant);
    const created = (await post({ name: 'x', percentage: '50', affiliation: [[a, '50']] })).json();
    const res = await t.call(merchant, {
      method: 'DELETE',
      url: `/api/maaffiliation/${created.id}`,
    });
    expect(res.json()).toEqual({ status: 'suspended', id: created.id });
    expect(
      (await t.call(merchant, { method: 'GET', url: `/api/maaffiliation/${created.id}` })).json()
        .status,
    ).toBe('suspended');
    expect(
      (await t.call(merchant, { method: 'GET', url: '/api/maaffiliation/ma000000000000000000' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.call(merchant, { method: 'DELETE', url: '/api/maaffiliation/ma000000000000000000' }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.call(merchant, { method: 'GET', url: `/api/maaffiliation/${'a'.repeat(21)}` }))
        .statusCode,
    ).toBe(400);
  });
});

describe('POST /api/maaffiliation with the misspelled key (supplement §1.1)', () => {
  it('accepts affiliaction as an alias of affiliation; affiliation wins when both come', async () => {
    const a = await createClient(t, merchant, { name: 'A' });
    const b = await createClient(t, merchant, { name: 'B' });
    const alias = await post({ name: 'typo', percentage: '20', affiliaction: [[a, '80']] });
    expect(alias.statusCode).toBe(200);
    expect(alias.json()).toMatchObject({
      status: 'register',
      affiliations: [{ id: a, percentage: '80.00' }],
    });
    const both = await post({
      name: 'both',
      percentage: '10',
      affiliation: [[b, '90']],
      affiliaction: [[a, '90']],
    });
    expect(both.json()).toMatchObject({
      status: 'register',
      affiliations: [{ id: b, percentage: '90.00' }],
    });
  });
});
