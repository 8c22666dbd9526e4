// Decision 984 (996's LOW): production accepts an account whose Transbank keys name the integration (test)
// environment, the documented way to try a deployment; its sales are paid with Transbank's public test cards and no
// money. A production start names each such account in a warning, and `cobro accounts show` says it.
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../support/app.ts';
import { cloneTestDatabase, type TestDatabaseHandle } from '../../support/database.ts';
import { freePort } from '../../support/net.ts';
import { startServer } from '../../../src/server.ts';
import { dispatch } from '../../../src/cli/dispatch.ts';
import { createAccount } from '../../../src/modules/accounts/service.ts';
import { limits } from '../../../src/limits/index.ts';

let handle: TestDatabaseHandle;
const secret = crypto.randomBytes(32).toString('hex');

beforeAll(async () => {
  handle = await cloneTestDatabase();
});
afterAll(async () => {
  await handle?.close();
});

/** A production `cobro serve` on the shared database (left open between starts): its warnings, and its context. */
async function start() {
  const lines: { msg: string; account?: string; processors?: string[]; more?: number }[] = [];
  const logger = pino(
    { level: 'warn' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    }),
  );
  const port = await freePort();
  const server = await startServer(
    testConfig({
      COBRO_MODE: 'production',
      COBRO_SECRET_KEY: secret,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    }),
    { handle: { ...handle, close: async () => {} }, logger },
  );
  const integration = lines.filter((l) => l.msg.includes("Transbank's integration environment"));
  return { server, integration };
}

const setProcessor = (
  ctx: Parameters<typeof dispatch>[1],
  id: string,
  environment: string,
  oneclick = false,
) =>
  dispatch(
    [
      'accounts',
      'set-processor',
      id,
      '--webpay-commerce-code',
      '597055555532',
      '--webpay-api-key',
      '579B532A7440BB0C9079DED94D31EA1615BACEB56610332264630D42D0A36B1C',
      ...(oneclick
        ? [
            '--oneclick-commerce-code',
            '597055555541',
            '--oneclick-child-commerce-code',
            '597055555542',
            '--oneclick-api-key',
            '579B532A7440BB0C9079DED94D31EA1615BACEB56610332264630D42D0A36B1C',
          ]
        : []),
      '--environment',
      environment,
    ],
    ctx,
  );

describe("accounts on Transbank's integration environment in production", () => {
  it('are named at every production start, each with its products; production keys are not', async () => {
    const first = await start();
    const ctx = first.server.runtime.ctx;
    expect(first.integration).toEqual([]);
    const shop = await createAccount(ctx, 'Tienda de prueba');
    const both = await createAccount(ctx, 'Club de prueba');
    const url = await createAccount(ctx, 'Tienda URL');
    const live = await createAccount(ctx, 'Tienda real');
    if (!shop.ok || !both.ok || !url.ok || !live.ok) throw new Error('account not created');
    expect((await setProcessor(ctx, shop.value.id, 'integration')).exitCode).toBe(0);
    expect((await setProcessor(ctx, both.value.id, 'integration', true)).exitCode).toBe(0);
    expect(
      (await setProcessor(ctx, url.value.id, 'https://webpay3gint.transbank.cl/')).exitCode,
    ).toBe(0);
    expect((await setProcessor(ctx, live.value.id, 'production', true)).exitCode).toBe(0);
    await first.server.close();

    const second = await start();
    try {
      expect(second.integration.map((l) => [l.account, l.processors])).toEqual([
        [shop.value.id, ['webpay_plus']],
        [both.value.id, ['webpay_plus', 'oneclick_mall']],
        [url.value.id, ['webpay_plus']],
      ]);
      expect(second.integration[1]?.msg).toBe(
        `account ${both.value.id} (Club de prueba) takes payments on Transbank's integration environment (Webpay Plus, Oneclick Mall): Transbank's public test cards pay its sales and no money moves; give it its production keys with cobro accounts set-processor --environment production before it sells`,
      );

      // `accounts show` says it, in text and JSON; an account on production keys says only its environment.
      const shown = await dispatch(['accounts', 'show', both.value.id], second.server.runtime.ctx);
      expect(shown.stdout).toContain(
        "webpay plus:    commerce code 597055555532, environment integration: Transbank's TEST environment, its public test cards pay and no money moves",
      );
      expect(shown.stdout).toContain(
        'oneclick mall:  commerce code 597055555541, environment integration: ',
      );
      expect(shown.stdout).not.toContain('579B532A');
      const json = JSON.parse(
        (await dispatch(['accounts', 'show', url.value.id, '--json'], second.server.runtime.ctx))
          .stdout,
      );
      expect(json.transbank).toEqual([
        {
          product: 'webpay_plus',
          commerce_code: '597055555532',
          environment: 'https://webpay3gint.transbank.cl/',
          integration: true,
        },
      ]);
      const real = await dispatch(['accounts', 'show', live.value.id], second.server.runtime.ctx);
      expect(real.stdout).toContain(
        'webpay plus:    commerce code 597055555532, environment production\n',
      );
      expect(real.stdout).not.toContain('TEST');

      // Moved to production keys, an account is no longer named.
      expect(
        (await setProcessor(second.server.runtime.ctx, shop.value.id, 'production')).exitCode,
      ).toBe(0);
    } finally {
      await second.server.close();
    }
    const third = await start();
    await third.server.close();
    expect(third.integration.map((l) => l.account)).toEqual([both.value.id, url.value.id]);
  });

  it(`names at most ${limits.startNoteAccountsMax} accounts and counts the rest`, async () => {
    const first = await start();
    const ctx = first.server.runtime.ctx;
    try {
      for (let i = 0; i < limits.startNoteAccountsMax; i++) {
        const a = await createAccount(ctx, `Tienda ${i}`);
        if (!a.ok) throw new Error(a.error);
        expect((await setProcessor(ctx, a.value.id, 'integration')).exitCode).toBe(0);
      }
    } finally {
      await first.server.close();
    }
    const second = await start();
    await second.server.close();
    expect(second.integration.filter((l) => l.account !== undefined)).toHaveLength(
      limits.startNoteAccountsMax,
    );
    // Two left from the first test, and these.
    expect(second.integration.at(-1)).toMatchObject({
      more: 2,
      msg: "2 more accounts take payments on Transbank's integration environment: cobro accounts show ID says it of each",
    });
  });
});
