// A real day before the service's earliest local year (limits.localYearMin) is a client's input, not a bug: both
// the POST and the CSV answer the seed's 400 naming the field, never a 500 (decision 890).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

let t: TestApp;
let a: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const cases: Array<[Record<string, string>, Record<string, string>]> = [
  [
    { date_init: '1899-12-31', date_end: '1899-12-31' },
    { date_init: 'invalid', date_end: 'invalid' },
  ],
  [
    { date_init: '1000-01-01', date_end: '1000-01-05' },
    { date_init: 'invalid', date_end: 'invalid' },
  ],
  [{ date_init: '1899-12-31', date_end: '1900-01-01' }, { date_init: 'invalid' }],
];

describe('conciliation days before the earliest local year', () => {
  it.each(cases)('POST %j answers 400 naming the field', async (body, errors) => {
    const res = await t.call(a, { method: 'POST', url: '/api/conciliation', body });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'failed', errors });
  });

  it.each(cases)('CSV %j answers 400 naming the field', async (query, errors) => {
    const res = await t.call(a, {
      method: 'GET',
      url: `/api/conciliation.csv?${new URLSearchParams(query).toString()}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'failed', errors });
  });
});
