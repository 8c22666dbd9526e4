// Review of the seed contract (branch review-seed, decision 845): values inside the `[id, percent]` pairs of
// POST /api/maaffiliation and the beneficiaries of POST /api/event, which no schema types, read as supplement §1.2
// reads every other field: a number in a string's place keeps its text, and a value that was given is never
// reported as `is empty`. Each case failed when it was written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { createClient } from '../modules/marketplace/helpers.ts';

let t: TestApp;
let m: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  m = await t.createAccount('Seed review 845');
});
afterAll(async () => {
  await t.close();
});

const membership = (affiliation: unknown) =>
  t.call(m, {
    method: 'POST',
    url: '/api/maaffiliation',
    body: { name: 'market', percentage: '20', affiliation },
  });

const event = (code: string, affiliation: unknown) =>
  t.call(m, {
    method: 'POST',
    url: '/api/event',
    body: {
      event: code,
      name: 'Event',
      date_event: '2026-12-20',
      date_payment: '2026-12-22',
      date_closing_sales: '2026-12-19 23:59:00',
      affiliation,
    },
  });

describe('POST /api/maaffiliation: the client id of a pair', () => {
  it('given as a number keeps its text: no such client, not `is empty`', async () => {
    const res = await membership([[123, '80']]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      status: 'failed',
      type: 'Unprocessable Entity',
      message_error: 'affiliation.0.0:not found',
      errors: { 'affiliation.0.0': 'not found' },
    });
  });

  it('given as a boolean or an object is invalid; missing or blank is still `is empty`', async () => {
    const client = await createClient(t, m);
    const cases: Array<[unknown, Record<string, string>]> = [
      [[[true, '80']], { 'affiliation.0.0': 'invalid' }],
      [[[{ id: client }, '80']], { 'affiliation.0.0': 'invalid' }],
      [[[null, '80']], { 'affiliation.0.0': 'is empty' }],
      [[['  ', '80']], { 'affiliation.0.0': 'is empty' }],
    ];
    for (const [affiliation, errors] of cases) {
      const res = await membership(affiliation);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual(errors);
    }
    // The same pair with the client's own id still makes the membership.
    expect((await membership([[client, '80']])).json().status).toBe('register');
  });
});

describe('POST /api/event: the email of a beneficiary', () => {
  it('given as a number, a boolean or an object is invalid, not `is empty`', async () => {
    const cases: Array<[unknown, Record<string, string>]> = [
      [[[12345, 50]], { 'affiliation.0.email': 'invalid' }],
      [[{ email: 12345, percent: 50 }], { 'affiliation.0.email': 'invalid' }],
      [[[false, 50]], { 'affiliation.0.email': 'invalid' }],
      [[[{ a: 1 }, 50]], { 'affiliation.0.email': 'invalid' }],
      [[{ percent: 50 }], { 'affiliation.0.email': 'is empty' }],
      [[['', 50]], { 'affiliation.0.email': 'is empty' }],
    ];
    for (const [affiliation, errors] of cases) {
      const res = await event('e-bad', affiliation);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        status: 'failed',
        type: 'Unprocessable Entity',
        message_error: Object.entries(errors)
          .map(([f, p]) => `${f}:${p}`)
          .join(','),
        errors,
      });
    }
  });
});

describe('GET /api/event/{id}: the code as the merchant sent it', () => {
  it('POST /api/event stores the code trimmed (decision 815); GET finds it by the same code with its spaces', async () => {
    const created = await event(' concierto-845 ', []);
    expect(created.json()).toMatchObject({ status: 'success', id: 'concierto-845' });
    for (const path of ['concierto-845', '%20concierto-845%20', 'concierto-845%20']) {
      const res = await t.call(m, { method: 'GET', url: `/api/event/${path}` });
      expect(res.statusCode).toBe(200);
      expect(res.json().id).toBe('concierto-845');
    }
  });
});
