// A urlnotify / url_notify that could never be delivered is refused when the transaction or payout is created,
// with the static checks of the delivery guard (scheme, address literals); host names are only resolved at delivery.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { fund, payoutBody } from '../wallet/wallet-helpers.ts';
import { setWebpayProcessor } from '../../support/webpay-shop.ts';

const base = { email: 'payer@example.com', order: 'cb-1', subject: 'Compra', amount: 25000 };

let sandbox: TestApp;
let production: TestApp;
let sandboxAccount: TestAccount;
let productionAccount: TestAccount;

beforeAll(async () => {
  sandbox = await startTestApp();
  production = await startTestApp({
    env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: crypto.randomBytes(32).toString('hex') },
  });
  sandboxAccount = await sandbox.createAccount();
  productionAccount = await production.createAccount();
  // A production sale needs a processor that could take it (decision 451).
  const configured = await setWebpayProcessor(
    production,
    productionAccount.id,
    { commerceCode: '597055555532', apiKey: 'key' },
    '--environment',
    'integration',
  );
  expect(configured.exitCode).toBe(0);
  await fund(sandbox, sandboxAccount, 100_000);
});
afterAll(async () => {
  await sandbox.close();
  await production.close();
});

async function createTransaction(t: TestApp, account: TestAccount, urlnotify: string) {
  return t.call(account, { method: 'POST', url: '/api/transaction', body: { ...base, urlnotify } });
}

async function createPayout(t: TestApp, account: TestAccount, url: string, order: string) {
  return t.call(account, {
    method: 'POST',
    url: '/api/wallet/payout',
    body: payoutBody({ url_notify: url, order }),
    sign: true,
  });
}

async function rowCounts(t: TestApp, account: TestAccount) {
  const count = async (table: 'transactions' | 'payouts') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', account.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { transactions: await count('transactions'), payouts: await count('payouts') };
}

const neverDeliverable = [
  'ftp://shop.example/notify',
  'javascript:alert(1)',
  'https://user:secret@shop.example/notify',
  'http://169.254.169.254/latest/meta-data',
  'http://0xa9.0xfe.0xa9.0xfe/notify',
  'https://[fe80::1]/notify',
  'http://0.0.0.0/notify',
  // Cloud metadata outside link-local space (decision 970).
  'http://100.100.100.200/latest/meta-data',
  'http://[fd00:ec2::254]/latest/meta-data',
];
const productionOnlyRefused = [
  'http://shop.example/notify',
  'https://127.0.0.1/notify',
  'https://2130706433/notify',
  'https://10.1.2.3/notify',
  'https://192.168.1.10/notify',
  'https://[::1]/notify',
  'https://[::ffff:127.0.0.1]/notify',
];

describe('urlnotify at creation, sandbox mode', () => {
  it.each(neverDeliverable)('refuses %s with urlnotify:invalid and writes nothing', async (url) => {
    const before = await rowCounts(sandbox, sandboxAccount);
    const res = await createTransaction(sandbox, sandboxAccount, url);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      status: 'failed',
      message_error: 'urlnotify:invalid',
      errors: { urlnotify: 'invalid' },
    });
    expect(await rowCounts(sandbox, sandboxAccount)).toEqual(before);
  });

  it.each([...productionOnlyRefused, 'https://shop.example/notify'])(
    'accepts %s for local development',
    async (url) => {
      const res = await createTransaction(sandbox, sandboxAccount, url);
      expect(res.statusCode).toBe(200);
      const row = await sandbox.ctx.db
        .selectFrom('transactions')
        .select('urlnotify')
        .where('id', '=', res.json().id)
        .executeTakeFirstOrThrow();
      expect(row.urlnotify).toBe(url);
    },
  );
});

describe('urlnotify at creation, production mode', () => {
  it.each([...neverDeliverable, ...productionOnlyRefused])(
    'refuses %s with urlnotify:invalid',
    async (url) => {
      const before = await rowCounts(production, productionAccount);
      const res = await createTransaction(production, productionAccount, url);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        status: 'failed',
        message_error: 'urlnotify:invalid',
        errors: { urlnotify: 'invalid' },
      });
      expect(await rowCounts(production, productionAccount)).toEqual(before);
    },
  );

  it('accepts an https host name without resolving it (it is checked at every delivery)', async () => {
    const res = await createTransaction(
      production,
      productionAccount,
      'https://shop.example/notify?orderClient=1',
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().status).toBe('pending');
  });
});

describe('payout url_notify at creation', () => {
  it.each([
    'http://169.254.169.254/latest',
    'https://user:pw@shop.example/notify',
    'http://0x7f.1:0@x/',
  ])('refuses %s in sandbox with url_notify:invalid', async (url) => {
    const before = await rowCounts(sandbox, sandboxAccount);
    const res = await createPayout(
      sandbox,
      sandboxAccount,
      url,
      `sb-${crypto.randomBytes(4).toString('hex')}`,
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'failed', errors: { url_notify: 'invalid' } });
    expect(await rowCounts(sandbox, sandboxAccount)).toEqual(before);
  });

  it('accepts a loopback url_notify in sandbox', async () => {
    const res = await createPayout(sandbox, sandboxAccount, 'http://127.0.0.1:9/notify', 'sb-ok');
    expect(res.json().status).toBe('success');
  });

  it.each([
    'http://shop.example/notify',
    'https://127.0.0.1/notify',
    'https://10.0.0.7/notify',
    'https://[::ffff:10.0.0.7]/n',
  ])('refuses %s in production with url_notify:invalid', async (url) => {
    const before = await rowCounts(production, productionAccount);
    const res = await createPayout(
      production,
      productionAccount,
      url,
      `pr-${crypto.randomBytes(4).toString('hex')}`,
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      status: 'failed',
      message_error: 'url_notify:invalid',
      errors: { url_notify: 'invalid' },
    });
    expect(await rowCounts(production, productionAccount)).toEqual(before);
  });
});
