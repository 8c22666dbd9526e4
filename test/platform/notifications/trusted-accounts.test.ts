// What a start says of CALLBACK_TRUSTED_ORIGINS (decision 987): an origin naming an account the database does not
// hold stops it; an origin open to every account is named in a warning at every production start.
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertTrustedAccountsExist } from '../../../src/platform/notifications/trusted-accounts.ts';
import { StartupError } from '../../../src/platform/process/startup-error.ts';
import { warnProductionSetup } from '../../../src/start-notes.ts';
import { startTestApp, testConfig, type TestAccount, type TestApp } from '../../support/app.ts';

let t: TestApp;
let account: TestAccount;
const production = {
  COBRO_MODE: 'production',
  COBRO_SECRET_KEY: crypto.randomBytes(32).toString('hex'),
};

beforeAll(async () => {
  t = await startTestApp({ env: production });
  account = await t.createAccount();
});
afterAll(async () => {
  await t.close();
});

describe('the accounts a trusted origin names', () => {
  it('pass when the database holds them, and stop the start naming those it does not', async () => {
    const missing = 'acc0123456789abcdef0';
    await expect(
      assertTrustedAccountsExist(
        t.ctx.db,
        testConfig({
          ...production,
          CALLBACK_TRUSTED_ORIGINS: `https://erp.internal@${account.id}`,
        }),
      ),
    ).resolves.toBeUndefined();
    const refused = assertTrustedAccountsExist(
      t.ctx.db,
      testConfig({
        ...production,
        CALLBACK_TRUSTED_ORIGINS: `https://erp.internal@${account.id}|${missing}`,
      }),
    );
    await expect(refused).rejects.toBeInstanceOf(StartupError);
    await expect(refused).rejects.toThrow(`CALLBACK_TRUSTED_ORIGINS names ${missing}, which`);
    // The sandbox ignores the setting, its accounts too.
    await expect(
      assertTrustedAccountsExist(t.ctx.db, {
        mode: 'sandbox',
        callbackTrustedOrigins: new Map([['https://erp.internal', new Set([missing])]]),
      }),
    ).resolves.toBeUndefined();
  });
});

describe('an origin open to every account', () => {
  it('is named in a warning at a production start; one naming its accounts is not', () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const config = testConfig({
      ...production,
      PUBLIC_BASE_URL: 'https://pay.example.com',
      CALLBACK_TRUSTED_ORIGINS: `http://127.0.0.1:4567, https://erp.internal@${account.id}`,
    });
    warnProductionSetup(logger, config, 'postgres');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual([
      "CALLBACK_TRUSTED_ORIGINS trusts http://127.0.0.1:4567 for every account: any merchant's callbacks may be sent there (only the status of its answers is kept, decision 987); name the accounts it serves (http://127.0.0.1:4567@acc…) to refuse the others",
    ]);
  });
});
