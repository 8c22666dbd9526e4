// What the seed's `Sign` does not protect (docs/authentication.md, issue 31 point 4), reproduced: it covers neither
// the method nor nested objects, and carries no time. A signature captured on GET /api/sususcription/{id} deletes
// the subscription; a captured PUT /api/maclient/{id} is replayed with another nested `bank`. Both succeed with
// plain Sign and are refused once the account requires Cobro-Signature (`cobro accounts require-strict-signing`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { computeCobroSignature } from '../../../src/platform/auth/cobro-signature.ts';
import { resolve as resolveCommand, runResolved } from '../../../src/cli/dispatch.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createClient } from '../../modules/marketplace/helpers.ts';
import { createPlan, createSuClient } from '../../modules/subscriptions/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

async function requireStrictSigning(account: TestAccount): Promise<void> {
  const resolved = resolveCommand(['accounts', 'require-strict-signing', account.id]);
  if (!('command' in resolved)) throw new Error(resolved.stderr);
  expect((await runResolved(resolved, t.ctx)).exitCode).toBe(0);
}

async function subscriptionOf(account: TestAccount, email: string): Promise<string> {
  const [plan, client] = [
    await createPlan(t, account),
    await createSuClient(t, account, { email }),
  ];
  const res = await t.call(account, {
    method: 'POST',
    url: '/api/sususcription',
    sign: true,
    body: { plan, client },
  });
  expect(res.statusCode).toBe(200);
  return res.json().id as string;
}

/** A request carrying headers captured from another one, replayed as an attacker would: the same bytes' headers. */
function replay(
  account: TestAccount,
  method: 'GET' | 'PUT' | 'DELETE',
  url: string,
  captured: Record<string, string>,
  body?: string,
) {
  return t.app.inject({
    method,
    url,
    ...(body === undefined ? {} : { payload: body }),
    headers: {
      accept: 'application/json',
      authorization: `Bearer ${account.publicToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...captured,
    },
  });
}

const nowS = () => Math.floor(t.clock.now().getTime() / 1000);

describe('reproduction 1: a captured GET /api/sususcription/{id} Sign used for DELETE', () => {
  it('deletes the subscription when the account relies on Sign alone', async () => {
    const account = await t.createAccount('Plain Sign 1');
    const id = await subscriptionOf(account, 'r1-plain@example.com');
    const path = `/api/sususcription/${id}`;
    // The merchant's own read, seen by someone on the way (a log, a proxy).
    const captured = { sign: computeSign(account.privateToken, path, {}) };
    expect((await replay(account, 'GET', path, captured)).statusCode).toBe(200);
    const deleted = await replay(account, 'DELETE', path, captured);
    expect(deleted.json()).toEqual({ id, status: 'success' });
    expect((await replay(account, 'GET', path, captured)).json().status).toBe('delete');
  });

  it('is refused once the account requires Cobro-Signature, which binds the method', async () => {
    const account = await t.createAccount('Strict 1');
    const id = await subscriptionOf(account, 'r1-strict@example.com');
    await requireStrictSigning(account);
    const path = `/api/sususcription/${id}`;
    const captured = {
      sign: computeSign(account.privateToken, path, {}),
      'cobro-signature': computeCobroSignature(account.privateToken, nowS(), 'GET', path, ''),
    };
    expect((await replay(account, 'GET', path, captured)).statusCode).toBe(200);
    const deleted = await replay(account, 'DELETE', path, captured);
    expect(deleted.statusCode).toBe(401);
    expect(deleted.json()).toEqual({
      status: 'failed',
      type: 'Unauthorized',
      message_error: 'invalid Cobro-Signature',
    });
    // Without the header at all: refused too.
    expect(
      (await replay(account, 'DELETE', path, { sign: captured.sign })).json().message_error,
    ).toBe('waiting Cobro-Signature');
    expect((await replay(account, 'GET', path, captured)).json().status).toBe('register');
  });
});

describe('reproduction 2: a captured PUT /api/maclient/{id} replayed with another nested bank', () => {
  const own = { sbif: '0001', type: 1, num: '12345678', rut: '111111111' };
  const attacker = { sbif: '0012', type: 1, num: '99999999', rut: '261009617' };

  it("moves the client's payouts to another bank account when the account relies on Sign alone", async () => {
    const account = await t.createAccount('Plain Sign 2');
    const id = await createClient(t, account);
    const path = `/api/maclient/${id}`;
    const body = { name: 'Jane Doe', bank: own };
    const captured = { sign: computeSign(account.privateToken, path, body) };
    expect((await replay(account, 'PUT', path, captured, JSON.stringify(body))).statusCode).toBe(
      200,
    );
    // Same scalars, another nested object: the same Sign.
    const forged = await replay(
      account,
      'PUT',
      path,
      captured,
      JSON.stringify({ name: 'Jane Doe', bank: attacker }),
    );
    expect(forged.statusCode).toBe(200);
    expect((await t.call(account, { method: 'GET', url: path })).json().bank).toMatchObject({
      sbif: '0012',
      num: '99999999',
    });
  });

  it('is refused once the account requires Cobro-Signature, which binds the whole body', async () => {
    const account = await t.createAccount('Strict 2');
    const id = await createClient(t, account);
    await requireStrictSigning(account);
    const path = `/api/maclient/${id}`;
    const text = JSON.stringify({ name: 'Jane Doe', bank: own });
    const captured = {
      sign: computeSign(account.privateToken, path, JSON.parse(text)),
      'cobro-signature': computeCobroSignature(account.privateToken, nowS(), 'PUT', path, text),
    };
    expect((await replay(account, 'PUT', path, captured, text)).statusCode).toBe(200);
    const forged = await replay(
      account,
      'PUT',
      path,
      captured,
      JSON.stringify({ name: 'Jane Doe', bank: attacker }),
    );
    expect(forged.statusCode).toBe(401);
    expect(forged.json().message_error).toBe('invalid Cobro-Signature');
    expect(
      (await t.call(account, { method: 'GET', url: path, signature: true })).json().bank,
    ).toMatchObject({ sbif: '0001', num: '12345678' });
  });
});
