// docs/authentication.md's JavaScript, run as a merchant would paste it (issue 32: every example in docs/ is run by a
// test): each ```js block is loaded as a module of its own, and the functions it shows sign real requests that the
// server accepts: `sign` for the seed's Sign (a query, a JSON body with a nested object dropped), `cobroSignature`
// for an account that requires Cobro-Signature.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve as resolveCommand, runResolved } from '../../src/cli/dispatch.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';
import { repoRoot } from '../support/cli.ts';

type SignFn = (privateToken: string, path: string, params: Record<string, unknown>) => string;
type CobroSignatureFn = (
  privateToken: string,
  method: string,
  path: string,
  body?: string,
) => string;

const guide = fs.readFileSync(path.join(repoRoot, 'docs/authentication.md'), 'utf8');
const jsBlocks = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-auth-doc-'));

/** A block of the guide as a module, with the function it defines exported. */
async function loadBlock<T>(name: string): Promise<T> {
  const block = jsBlocks.find((b) => new RegExp(`function ${name}\\(`).test(b));
  if (block === undefined) throw new Error(`docs/authentication.md shows no function ${name}`);
  const file = path.join(scratch, `${name}.mjs`);
  fs.writeFileSync(file, `${block}\nexport { ${name} };\n`);
  return ((await import(pathToFileURL(file).href)) as Record<string, T>)[name]!;
}

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  // Cobro-Signature's time is checked against the service clock: the server runs on the system's.
  t = await startTestApp({ clockStart: new Date().toISOString() });
  merchant = await t.createAccount('Docs auth merchant');
});
afterAll(async () => {
  await t.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const bearer = (a: TestAccount) => ({
  accept: 'application/json',
  authorization: `Bearer ${a.publicToken}`,
});

describe('docs/authentication.md examples', () => {
  it('shows two blocks of JavaScript, both run here', () => {
    expect(jsBlocks).toHaveLength(2);
  });

  it("signs a GET's query and a POST's body with the guide's sign()", async () => {
    const sign = await loadBlock<SignFn>('sign');
    const read = await t.app.inject({
      method: 'GET',
      url: '/api/wallet/list?page=1&per_page=100',
      headers: {
        ...bearer(merchant),
        sign: sign(merchant.privateToken, '/api/wallet/list', { page: '1', per_page: '100' }),
      },
    });
    expect(read.statusCode, read.body).toBe(200);

    await t.app.inject({
      method: 'POST',
      url: '/api/sandbox/wallet/credit',
      headers: bearer(merchant),
      payload: { amount: 5000, currency: 'CLP', reason: 'docs' },
    });
    const body = {
      email: 'ana@example.com',
      subject: 'Pago proveedor',
      currency: 'CLP',
      order: 'auth-doc-1',
      amount: 1000,
      accountbank_name: 'Ana Pérez',
      accountbank_rut: '111111111',
      accountbank_sbif: '0001',
      accountbank_type: '1',
      accountbank_num: '12312312312',
      additional_parameters: { parameter_1: 'dropped from the signed text' },
    };
    const paid = await t.app.inject({
      method: 'POST',
      url: '/api/wallet/payout',
      headers: {
        ...bearer(merchant),
        sign: sign(merchant.privateToken, '/api/wallet/payout', body),
      },
      payload: body,
    });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json()).toMatchObject({ status: 'success' });
  });

  it("passes a strict account's check with the guide's cobroSignature()", async () => {
    const sign = await loadBlock<SignFn>('sign');
    const cobroSignature = await loadBlock<CobroSignatureFn>('cobroSignature');
    const strict = await t.createAccount('Docs strict merchant');
    const resolved = resolveCommand(['accounts', 'require-strict-signing', strict.id]);
    if (!('command' in resolved)) throw new Error(resolved.stderr);
    expect((await runResolved(resolved, t.ctx)).exitCode).toBe(0);
    const headers = { ...bearer(strict), sign: sign(strict.privateToken, '/api/account', {}) };

    const without = await t.app.inject({ method: 'GET', url: '/api/account', headers });
    expect(without.statusCode).toBe(401);
    const signed = await t.app.inject({
      method: 'GET',
      url: '/api/account',
      headers: {
        ...headers,
        'cobro-signature': cobroSignature(strict.privateToken, 'GET', '/api/account'),
      },
    });
    expect(signed.statusCode, signed.body).toBe(200);
  });
});
