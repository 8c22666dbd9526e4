// A JSON body that writes a key twice (issue 31 point 2) is refused with the seed's 400 envelope naming the key,
// at any depth, and writes nothing; JSON.parse alone would let the last value win (a second `amount`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';

let t: TestApp;
let account: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

const transactions = async () =>
  Number(
    (
      await t.ctx.db
        .selectFrom('transactions')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const post = (text: string) =>
  t.call(account, {
    method: 'POST',
    url: '/api/transaction',
    body: text,
    headers: { 'content-type': 'application/json' },
  });

describe('a JSON body with a duplicate key', () => {
  it.each([
    [
      '{"email":"p@example.com","order":"dup-1","subject":"s","amount":1000,"amount":999999}',
      'amount',
    ],
    [
      '{"email":"p@example.com","order":"dup-2","subject":"s","amount":1000,"additional_parameters":{"order_ext":"a","order_ext":"b"}}',
      'additional_parameters.order_ext',
    ],
    [
      '{"email":"p@example.com","order":"dup-3","subject":"s","amount":1000,"additional_parameters":{"list":[{"k":1},{"k":1,"\\u006b":2}]}}',
      'additional_parameters.list.1.k',
    ],
    [
      '{"email":"p@example.com" , "order":"dup-4","subject":"s","amount":1000,\n "email" : "q@example.com"}',
      'email',
    ],
  ])('refuses %s with 400 naming %s, writing nothing', async (text, key) => {
    const before = await transactions();
    const res = await post(text);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      status: 'failed',
      type: 'Unprocessable Entity',
      message_error: `${key}:duplicate key`,
      errors: { [key]: 'duplicate key' },
    });
    expect(await transactions()).toBe(before);
  });

  it('accepts the same key in different objects, and `":` inside strings', async () => {
    const res = await post(
      '{"email":"p@example.com","order":"dup-ok","subject":"say \\"amount\\": twice","amount":1000,"additional_parameters":{"amount":"1","order":"x"}}',
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('pending');
  });
});
