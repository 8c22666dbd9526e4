// Decision 982 (983's LOW): a Transbank environment URL carrying a user or a password (`https://:pw@host`) was taken
// by `cobro accounts set-processor` and printed back by `cobro accounts show`, text and --json. It is refused now, and
// any such URL already stored is shown with its user and password redacted, by `accounts show` and by the dashboard's
// Suscripciones page (shown to the account's own users in production).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { dashboardBrowser } from '../../support/dashboard.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { COBRO_MODE: 'production', COBRO_SECRET_KEY: 'cd'.repeat(32) } });
});
afterAll(async () => {
  await t?.close();
});

const apiKey = '579B532A7440BB0C9079DED94D31EA1615BACEB56610332264630D42D0A36B1C';
const webpay = ['--webpay-commerce-code', '597055555532', '--webpay-api-key', apiKey];
const oneclick = [
  '--oneclick-commerce-code',
  '597055555541',
  '--oneclick-child-commerce-code',
  '597055555542',
  '--oneclick-api-key',
  apiKey,
];

describe('a Transbank environment URL with a user or a password', () => {
  for (const url of [
    'https://:s3cr3t-pw@proxy.internal',
    'https://user:s3cr3t-pw@proxy.internal',
    'https://s3cr3t-pw@proxy.internal',
  ])
    for (const [what, options] of [
      ['webpay plus', webpay],
      ['oneclick mall', oneclick],
      ['both', [...webpay, ...oneclick]],
    ] as const)
      it(`is refused by set-processor (${what}, ${url.replace('s3cr3t-pw', 'PW')})`, async () => {
        const a = await t.createAccount();
        const out = await dispatch(
          ['accounts', 'set-processor', a.id, ...options, '--environment', url],
          t.ctx,
        );
        expect(out.exitCode).toBe(2);
        expect(out.stderr).toContain(
          '--environment must not carry a user or password (user:password@ before the host)',
        );
        expect(out.stdout + out.stderr).not.toContain('s3cr3t-pw');
        const shown = await dispatch(['accounts', 'show', a.id, '--json'], t.ctx);
        expect(JSON.parse(shown.stdout).transbank).toEqual([]);
      });

  it('already stored is shown by accounts show with its user and password redacted', async () => {
    const a = await t.createAccount();
    const set = await dispatch(
      [
        'accounts',
        'set-processor',
        a.id,
        ...webpay,
        ...oneclick,
        '--environment',
        'https://proxy.internal',
      ],
      t.ctx,
    );
    expect(set.exitCode).toBe(0);
    // As an earlier version stored them.
    await t.ctx.db
      .updateTable('account_processors')
      .set({ environment: 'https://:s3cr3t-pw@proxy.internal/' })
      .where('account_id', '=', a.id)
      .execute();
    await t.ctx.db
      .updateTable('account_oneclick')
      .set({ environment: 'https://user:s3cr3t-pw@proxy.internal' })
      .where('account_id', '=', a.id)
      .execute();
    const text = await dispatch(['accounts', 'show', a.id], t.ctx);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).not.toContain('s3cr3t-pw');
    expect(text.stdout).not.toContain('user');
    expect(text.stdout).toContain(
      'webpay plus:    commerce code 597055555532, environment https://***@proxy.internal/\n',
    );
    expect(text.stdout).toContain(
      'oneclick mall:  commerce code 597055555541, environment https://***@proxy.internal/',
    );
    const json = await dispatch(['accounts', 'show', a.id, '--json'], t.ctx);
    expect(json.stdout).not.toContain('s3cr3t-pw');
    expect(JSON.parse(json.stdout).transbank).toEqual([
      {
        product: 'webpay_plus',
        commerce_code: '597055555532',
        environment: 'https://***@proxy.internal/',
        integration: false,
      },
      {
        product: 'oneclick_mall',
        commerce_code: '597055555541',
        environment: 'https://***@proxy.internal/',
        integration: false,
      },
    ]);
    const browser = dashboardBrowser(t);
    await browser.signIn(a);
    const page = await browser.get('/dashboard/subscriptions');
    expect(page.body).toContain('data-testid="oneclick-settings"');
    expect(page.body).toContain('https://***@proxy.internal/');
    expect(page.body).not.toContain('s3cr3t-pw');
  });

  it('stays as written when it carries none', async () => {
    const a = await t.createAccount();
    expect(
      (
        await dispatch(
          [
            'accounts',
            'set-processor',
            a.id,
            ...webpay,
            '--environment',
            'https://proxy.internal/',
          ],
          t.ctx,
        )
      ).exitCode,
    ).toBe(0);
    const json = await dispatch(['accounts', 'show', a.id, '--json'], t.ctx);
    expect(JSON.parse(json.stdout).transbank[0].environment).toBe('https://proxy.internal/');
  });
});
