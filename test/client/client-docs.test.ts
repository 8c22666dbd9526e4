// The example in docs/client.md is test/client/doc-example.ts word for word (so `tsc --noEmit` type-checks it),
// and it runs, as a merchant would run it, on plain Node against a listening sandbox app.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount } from '../support/app.ts';
import { startLiveApp, type LiveApp } from './live-app.ts';

const run = promisify(execFile);
const exampleFile = path.join(import.meta.dirname, 'doc-example.ts');
const docFile = path.resolve(import.meta.dirname, '../../docs/client.md');
/** The package entry the guide imports; the checked file imports the sources instead. */
const publishedImport = `from 'cobro-client'`;
const sourceImport = `from '../../packages/client/src/index.ts'`;

/** The first ```ts block of docs/client.md: the example the guide shows. */
function docExample(): string {
  const match = /```ts\n([\s\S]*?)```/.exec(fs.readFileSync(docFile, 'utf8'));
  if (match?.[1] === undefined) throw new Error('docs/client.md has no ts example');
  return match[1];
}

let live: LiveApp;
let merchant: TestAccount;
beforeAll(async () => {
  // The client in another process signs with the system clock (Cobro-Signature), so the server runs on it too.
  live = await startLiveApp({ clockStart: new Date().toISOString() });
  merchant = await live.t.createAccount('Docs merchant');
});
afterAll(async () => {
  await live.close();
});

describe('docs/client.md example', () => {
  it('is test/client/doc-example.ts with the published import', () => {
    const shown = docExample();
    expect(shown).toContain(publishedImport);
    expect(shown.replace(publishedImport, sourceImport)).toBe(fs.readFileSync(exampleFile, 'utf8'));
  });

  it('credits the wallet, creates a payout and prints its status; the payout exists on the server', async () => {
    const env = {
      ...process.env,
      COBRO_BASE_URL: live.baseUrl,
      COBRO_PUBLIC_TOKEN: merchant.publicToken,
      COBRO_PRIVATE_TOKEN: merchant.privateToken,
    };
    // Async: the server answering the example lives in this process, so a sync spawn would deadlock.
    const { stdout } = await run(process.execPath, [exampleFile], { env, timeout: 60_000 });
    const printed = /^payout (\S+): (\S+)$/m.exec(stdout);
    expect(printed).not.toBeNull();
    const [, payoutId, status] = printed as unknown as [string, string, string];
    const res = await live.t.call(merchant, {
      method: 'GET',
      url: `/api/payout/${payoutId}`,
      sign: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().payout).toMatchObject({ id: payoutId, status, amount: '1000' });
    const wallet = await live.t.call(merchant, { method: 'GET', url: '/api/wallet', sign: true });
    expect(wallet.json().amount_available).toBe(4000);
  });
});
