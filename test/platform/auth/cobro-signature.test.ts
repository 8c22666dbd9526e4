// Cobro-Signature (decision 140, issue 14 point 2): a header seen once cannot be replayed onto another body,
// another resource, or outside the tolerance window; an account can require it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeCobroSignature } from '../../../src/platform/auth/cobro-signature.ts';
import { computeSign } from '../../../src/platform/auth/sign.ts';
import { resolve as resolveCommand, runResolved } from '../../../src/cli/dispatch.ts';
import { limits } from '../../../src/limits/index.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createClient } from '../../modules/marketplace/helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Strict merchant');
});
afterAll(async () => {
  await t.close();
});

const nowS = () => Math.floor(t.clock.now().getTime() / 1000);

/** PUT /api/maclient/{id} with a valid Sign and the given Cobro-Signature over `body` as sent. */
function putClient(id: string, body: object, cobroSignature?: string) {
  const path = `/api/maclient/${id}`;
  return t.app.inject({
    method: 'PUT',
    url: path,
    payload: JSON.stringify(body),
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: `Bearer ${merchant.publicToken}`,
      sign: computeSign(merchant.privateToken, path, body as Record<string, unknown>),
      ...(cobroSignature === undefined ? {} : { 'cobro-signature': cobroSignature }),
    },
  });
}

async function bankOf(id: string): Promise<unknown> {
  return (await t.call(merchant, { method: 'GET', url: `/api/maclient/${id}` })).json().bank;
}

async function cli(...args: string[]) {
  const resolved = resolveCommand(args);
  if (!('command' in resolved)) throw new Error(resolved.stderr);
  return runResolved(resolved, t.ctx);
}

describe('Cobro-Signature', () => {
  it('is accepted when it matches; replayed onto another bank account it is refused and nothing changes', async () => {
    const id = await createClient(t, merchant);
    const mine = { bank: { sbif: '0001', type: '1', num: '1111111', rut: '111111111' } };
    const header = computeCobroSignature(
      merchant.privateToken,
      nowS(),
      'PUT',
      `/api/maclient/${id}`,
      JSON.stringify(mine),
    );
    const ok = await putClient(id, mine, header);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().bank).toEqual({ sbif: '0001', type: '1', num: '1111111', rut: '111111111' });

    // The attack of issue 14: `Sign` drops nested objects, so the same Sign validates any other bank body; the
    // Cobro-Signature seen with it does not.
    const theirs = { bank: { sbif: '0001', type: '1', num: '6666666', rut: '111111111' } };
    const replayed = await putClient(id, theirs, header);
    expect(replayed.statusCode).toBe(401);
    expect(replayed.json()).toEqual({
      status: 'failed',
      type: 'Unauthorized',
      message_error: 'invalid Cobro-Signature',
    });
    expect(await bankOf(id)).toEqual({ sbif: '0001', type: '1', num: '1111111', rut: '111111111' });

    // Nor onto another client with the same body.
    const other = await createClient(t, merchant);
    expect((await putClient(other, mine, header)).statusCode).toBe(401);
    // Nor with the body re-serialised (whitespace): the raw bytes are signed.
    const spaced = await t.app.inject({
      method: 'PUT',
      url: `/api/maclient/${id}`,
      payload: JSON.stringify(mine, null, 1),
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${merchant.publicToken}`,
        sign: computeSign(merchant.privateToken, `/api/maclient/${id}`, mine),
        'cobro-signature': header,
      },
    });
    expect(spaced.statusCode).toBe(401);
  });

  it('is refused outside the tolerance window, either way, even when the MAC matches', async () => {
    const id = await createClient(t, merchant);
    const body = { name: 'Late' };
    const toleranceS = limits.cobroSignatureToleranceMs / 1000;
    for (const skewS of [-(toleranceS + 1), toleranceS + 1]) {
      const header = computeCobroSignature(
        merchant.privateToken,
        nowS() + skewS,
        'PUT',
        `/api/maclient/${id}`,
        JSON.stringify(body),
      );
      const res = await putClient(id, body, header);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({
        status: 'failed',
        type: 'Unauthorized',
        message_error: expect.stringMatching(/^Cobro-Signature timestamp is more than 300 seconds/),
      });
    }
    const atEdge = computeCobroSignature(
      merchant.privateToken,
      nowS() - toleranceS,
      'PUT',
      `/api/maclient/${id}`,
      JSON.stringify(body),
    );
    expect((await putClient(id, body, atEdge)).statusCode).toBe(200);
    // The same header a second later than the window: refused.
    t.clock.advanceMs(1000 + 999);
    expect((await putClient(id, body, atEdge)).statusCode).toBe(401);
  });

  it('refuses malformed headers and a wrong key', async () => {
    const id = await createClient(t, merchant);
    const body = { name: 'X' };
    const good = computeCobroSignature(
      merchant.privateToken,
      nowS(),
      'PUT',
      `/api/maclient/${id}`,
      JSON.stringify(body),
    );
    for (const header of [
      'garbage',
      `t=${nowS()}`,
      `v1=${'a'.repeat(64)}`,
      `t=abc,v1=${'a'.repeat(64)}`,
      `${good},t=1`,
      computeCobroSignature(
        'f'.repeat(32),
        nowS(),
        'PUT',
        `/api/maclient/${id}`,
        JSON.stringify(body),
      ),
      'x'.repeat(500),
    ]) {
      const res = await putClient(id, body, header);
      expect(res.statusCode, header).toBe(401);
      expect(res.json().message_error).toBe('invalid Cobro-Signature');
    }
    // Several v1 values (a client rotating keys): one match is enough.
    expect((await putClient(id, body, `${good},v1=${'b'.repeat(64)}`)).statusCode).toBe(200);
  });

  it('covers GET and bodiless requests too (method and path are signed)', async () => {
    const [a, b] = [await createClient(t, merchant), await createClient(t, merchant)];
    const header = computeCobroSignature(
      merchant.privateToken,
      nowS(),
      'GET',
      `/api/maclient/${a}`,
      '',
    );
    const base = {
      accept: 'application/json',
      authorization: `Bearer ${merchant.publicToken}`,
      'cobro-signature': header,
    };
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/maclient/${a}?x=1`, headers: base }))
        .statusCode,
    ).toBe(200);
    expect(
      (await t.app.inject({ method: 'GET', url: `/api/maclient/${b}`, headers: base })).statusCode,
    ).toBe(401);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `/api/maclient/${a}`, headers: base }))
        .statusCode,
    ).toBe(401);
    expect(
      (await t.call(merchant, { method: 'DELETE', url: `/api/maclient/${b}`, signature: true }))
        .statusCode,
    ).toBe(200);
  });

  it('becomes required for an account with `cobro accounts require-strict-signing ID`, and --off lifts it', async () => {
    const strict = await t.createAccount('Requires signatures');
    const on = await cli('accounts', 'require-strict-signing', strict.id);
    expect(on.exitCode).toBe(0);
    expect(on.stdout).toContain('now requires Cobro-Signature');

    const plain = await t.call(strict, { method: 'GET', url: '/api/account', sign: true });
    expect(plain.statusCode).toBe(401);
    expect(plain.json()).toEqual({
      status: 'failed',
      type: 'Unauthorized',
      message_error: 'waiting Cobro-Signature',
    });
    const unsigned = await t.call(strict, {
      method: 'POST',
      url: '/api/maclient',
      body: {
        email: 'a@b.cl',
        name: 'n',
        phone: '1',
        bank: { sbif: '0001', type: '1', num: '1', rut: '111111111' },
      },
    });
    expect(unsigned.statusCode).toBe(401);
    const before = await t.ctx.db
      .selectFrom('ma_clients')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', strict.id)
      .executeTakeFirstOrThrow();
    expect(Number(before.n)).toBe(0);

    expect(
      (await t.call(strict, { method: 'GET', url: '/api/account', sign: true, signature: true }))
        .statusCode,
    ).toBe(200);
    // Still the seed's Sign on a signed endpoint: Cobro-Signature adds to it, never replaces it.
    expect(
      (await t.call(strict, { method: 'GET', url: '/api/account', signature: true })).json()
        .message_error,
    ).toBe('waiting sign');
    // Other accounts are untouched.
    expect(
      (await t.call(merchant, { method: 'GET', url: '/api/account', sign: true })).statusCode,
    ).toBe(200);

    const off = await cli('accounts', 'require-strict-signing', strict.id, '--off', '--json');
    expect(JSON.parse(off.stdout)).toEqual({ id: strict.id, strict_signing: false });
    expect(
      (await t.call(strict, { method: 'GET', url: '/api/account', sign: true })).statusCode,
    ).toBe(200);
    expect((await cli('accounts', 'require-strict-signing', 'acc_nope')).exitCode).not.toBe(0);
  });
});
