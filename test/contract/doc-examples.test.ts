// Decision 700: the request example /api/openapi.json gives a self-contained create operation (no id of another
// resource in it) is a request the server accepts: Swagger UI's "Try it out" sends exactly it. Before 700 the
// server refused three with 400: POST /api/transaction (`expired`, `marketplace` filled with 'ejemplo', `event` naming
// no event), POST /api/suplan ('ejemplo' as its URLs), POST /api/sandbox/clock/advance (a move of zero). From
// review-contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';

let t: TestApp;
let m: TestAccount;
let doc: Record<string, any>;
beforeAll(async () => {
  t = await startTestApp();
  m = await t.createAccount('Examples merchant');
  doc = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
  await t.call(m, { method: 'POST', url: '/api/sandbox/wallet/credit', body: { amount: 100000 } });
});
afterAll(async () => {
  await t.close();
});

const selfContained = [
  ['/api/transaction', false],
  ['/api/suclient', true],
  ['/api/suplan', true],
  ['/api/maclient', false],
  ['/api/event', false],
  ['/api/wallet/payout', true],
  ['/api/sandbox/wallet/credit', false],
  ['/api/sandbox/clock/advance', false],
] as const;

describe("GET /api/openapi.json's request examples", () => {
  it('are accepted (no HTTP 400) by the operations they illustrate', async () => {
    const refused: Record<string, string> = {};
    for (const [path, sign] of selfContained) {
      const example = doc.paths[path].post.requestBody.content['application/json'].example;
      const res = await t.call(m, { method: 'POST', url: path, body: example, sign });
      if (res.statusCode === 400) refused[path] = res.json().message_error;
    }
    expect(refused).toEqual({});
  });
});
