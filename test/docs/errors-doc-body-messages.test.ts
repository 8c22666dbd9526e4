// docs/errors.md quotes the answers of a body refused before validation as the server writes them (decision 895):
// it said `body:too deep`, which is the `errors` object's problem; `message_error` names the bound.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { repoRoot } from '../support/cli.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const doc = () => fs.readFileSync(path.join(repoRoot, 'docs', 'errors.md'), 'utf8');

describe('docs/errors.md, bodies refused unread', () => {
  it.each([
    ['too deep', `${'['.repeat(70)}${']'.repeat(70)}`],
    ['too large', JSON.stringify({ subject: 'a'.repeat(1024 * 1024) })],
  ])('%s: the message and the errors object it shows are the ones answered', async (_, payload) => {
    const account = await t.createAccount();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/transaction',
      headers: {
        authorization: `Bearer ${account.publicToken}`,
        'content-type': 'application/json',
      },
      payload,
    });
    expect(res.statusCode).toBe(400);
    const body = res.json() as { message_error: string; errors: { body: string } };
    expect(doc()).toContain(`\`${body.message_error}\``);
    expect(doc()).toContain(`\`errors.body\`: \`${body.errors.body}\``);
  });
});
