// A rotated webhook secret's grace (docs/callbacks.md, decision 1000): through `cobro accounts rotate`, real
// deliveries to a receiver carry the new signature first and the old one after it until the grace ends on the
// injected clock, then only the new one; a second rotation with a grace during one is refused (decision 1150), one
// with 0 ends it; bad input changes nothing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { enqueueCallback } from '../../../src/platform/notifications/enqueue.ts';
import { deliverDueNotifications } from '../../../src/platform/notifications/deliver.ts';
import { webhookSignature } from '../../../src/platform/notifications/sign.ts';
import { rotateAccount } from '../../../src/modules/accounts/service.ts';
import { formatTimestamp } from '../../../src/platform/time/time-format.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { receiverPool } from '../../support/receiver.ts';
import { runOnContext } from '../../support/cli-in-process.ts';
import { raceBehindHeldLock } from '../../support/pg-locks.ts';

type Verify = (
  secret: string,
  headers: Record<string, string>,
  rawBody: string,
  toleranceSec?: number,
) => boolean;

const hourMs = 60 * 60 * 1000;
// The docs' verifier checks the timestamp against the machine's clock; the test's clock moves a day past it.
const toleranceSec = 10 * 24 * 60 * 60;

let t: TestApp;
let verify: Verify;
let dir: string;
const receivers = receiverPool();

beforeAll(async () => {
  const doc = fs.readFileSync(
    path.resolve(import.meta.dirname, '../../../docs/callbacks.md'),
    'utf8',
  );
  const match =
    /<!-- checked by test\/platform\/notifications\/docs-snippet\.test\.ts -->\n```js\n([\s\S]*?)```/.exec(
      doc,
    );
  if (match === null) throw new Error('verifier snippet not found in docs/callbacks.md');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-grace-'));
  const file = path.join(dir, 'verify.mjs');
  fs.writeFileSync(file, match[1]!);
  verify = ((await import(pathToFileURL(file).href)) as { verifyCobroWebhook: Verify })
    .verifyCobroWebhook;
  t = await startTestApp({ clockStart: new Date().toISOString() });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(() => receivers.closeAll());

/** One callback of the account delivered to a fresh receiver: its headers and raw body. */
async function delivered(account: TestAccount) {
  const r = await receivers.start();
  await t.ctx.db.transaction().execute((tx) =>
    enqueueCallback(tx, {
      accountId: account.id,
      url: r.url,
      eventType: 'transaction.result',
      payload: { order: '199', status: 'success' },
      at: t.clock.now(),
    }),
  );
  expect(await deliverDueNotifications(t.ctx, { accountId: account.id })).toBe(1);
  expect(r.requests).toHaveLength(1);
  const request = r.requests[0]!;
  return { headers: request.headers as Record<string, string>, body: request.body };
}

/** The `v1,` signature `secret` gives a delivered callback. */
function signedWith(secret: string, { headers, body }: Awaited<ReturnType<typeof delivered>>) {
  return webhookSignature(
    secret,
    headers['webhook-id']!,
    Number(headers['webhook-timestamp']),
    body,
  );
}

async function rotate(accountId: string, ...options: string[]) {
  const run = await runOnContext(
    ['accounts', 'rotate', accountId, '--only', 'webhook-secret', ...options, '--json'],
    t.ctx,
  );
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as {
    webhook_secret: string;
    webhook_secret_previous_until: string | null;
  };
}

async function accountRow(accountId: string) {
  return t.ctx.db
    .selectFrom('accounts')
    .selectAll()
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
}

async function auditActions(accountId: string): Promise<string[]> {
  const rows = await t.ctx.db
    .selectFrom('audit_log')
    .select('action')
    .where('chain', '=', accountId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => r.action);
}

describe('a webhook secret rotated with a grace', () => {
  it('signs with the new secret and the old one until the grace ends, then with the new one only', async () => {
    const account = await t.createAccount('Grace');
    const oldSecret = account.webhookSecret;
    const rotated = await rotate(account.id);
    const newSecret = rotated.webhook_secret;
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.webhook_secret_previous_until).not.toBeNull();

    const during = await delivered(account);
    expect(during.headers['webhook-signature']).toBe(
      `${signedWith(newSecret, during)} ${signedWith(oldSecret, during)}`,
    );
    // Any verifier accepts it with either secret: the standard library and the docs' hand-written one.
    expect(() => new Webhook(newSecret).verify(during.body, during.headers)).not.toThrow();
    expect(() => new Webhook(oldSecret).verify(during.body, during.headers)).not.toThrow();
    expect(verify(newSecret, during.headers, during.body)).toBe(true);
    expect(verify(oldSecret, during.headers, during.body)).toBe(true);

    // The default grace is 24 hours, read from the injected clock.
    t.clock.advanceMs(24 * hourMs - 1000);
    const lastSecond = await delivered(account);
    expect(verify(oldSecret, lastSecond.headers, lastSecond.body, toleranceSec)).toBe(true);
    expect(verify(newSecret, lastSecond.headers, lastSecond.body, toleranceSec)).toBe(true);

    t.clock.advanceMs(1000);
    const after = await delivered(account);
    expect(after.headers['webhook-signature']).toBe(signedWith(newSecret, after));
    expect(verify(newSecret, after.headers, after.body, toleranceSec)).toBe(true);
    expect(verify(oldSecret, after.headers, after.body, toleranceSec)).toBe(false);

    // The audit row is the rotation's, as before, and names the grace.
    expect(await auditActions(account.id)).toEqual([
      'cobro accounts rotate --webhook-grace-hours 24',
    ]);
    // `accounts show` no longer mentions a previous secret once its grace is over.
    const shown = await runOnContext(['accounts', 'show', account.id, '--json'], t.ctx);
    expect(JSON.parse(shown.stdout)).toMatchObject({ webhook_secret_previous_until: null });
  });

  it('refuses a second rotation with a grace while one runs (a retry after a lost terminal), changing nothing', async () => {
    const account = await t.createAccount('Retry');
    const original = account.webhookSecret;
    const rotatedAt = formatTimestamp(t.clock.now(), t.ctx.config.timeZone);
    const first = await rotate(account.id);
    t.clock.advanceMs(hourMs);
    const before = await accountRow(account.id);
    // The operator lost the first run's output and runs it again (decision 1150).
    const again = await runOnContext(
      ['accounts', 'rotate', account.id, '--only', 'webhook-secret', '--webhook-grace-hours', '2'],
      t.ctx,
    );
    // The merchant still verifies with the original secret: it keeps working through the first grace.
    const during = await delivered(account);
    expect(verify(original, during.headers, during.body, toleranceSec)).toBe(true);
    expect(verify(first.webhook_secret, during.headers, during.body, toleranceSec)).toBe(true);
    expect([again.code, again.stdout]).toEqual([1, '']);
    const refusal =
      `the webhook secret was rotated at ${rotatedAt}, its grace runs until ${first.webhook_secret_previous_until}: ` +
      `cobro accounts show ${account.id} shows the current secret; --webhook-grace-hours 0 ends the grace now`;
    expect(again.stderr.trim()).toBe(refusal);
    // A full rotation gives the secret the default grace: refused too, its tokens unchanged.
    const all = await runOnContext(['accounts', 'rotate', account.id], t.ctx);
    expect([all.code, all.stdout]).toEqual([1, '']);
    expect(all.stderr.trim()).toBe(`${refusal}; --only tokens rotates the tokens alone`);
    expect(await accountRow(account.id)).toEqual(before);
    expect(await auditActions(account.id)).toEqual([
      'cobro accounts rotate --webhook-grace-hours 24',
    ]);
    // The service refuses any caller.
    const direct = await rotateAccount(t.ctx, account.id, 'webhook-secret', {
      webhookGraceHours: 1,
    });
    expect(direct.ok).toBe(false);
    expect(await accountRow(account.id)).toEqual(before);

    // Once the grace is over, a rotation with a grace is a rotation like the first.
    t.clock.advanceMs(23 * hourMs);
    const later = await rotate(account.id, '--webhook-grace-hours', '3');
    const after = await delivered(account);
    expect(after.headers['webhook-signature']).toBe(
      `${signedWith(later.webhook_secret, after)} ${signedWith(first.webhook_secret, after)}`,
    );
    expect(verify(original, after.headers, after.body, toleranceSec)).toBe(false);
  });

  it('rotates only the tokens during a grace, keeping the grace', async () => {
    const account = await t.createAccount('Tokens in grace');
    const first = await rotate(account.id);
    const tokens = await runOnContext(
      ['accounts', 'rotate', account.id, '--only', 'tokens', '--json'],
      t.ctx,
    );
    expect(tokens.code, tokens.stderr).toBe(0);
    const shown = JSON.parse(tokens.stdout) as {
      public_token: string;
      webhook_secret_previous_until: string | null;
    };
    expect(shown.public_token).not.toBe(account.publicToken);
    expect(shown.webhook_secret_previous_until).toBe(first.webhook_secret_previous_until);
    const sent = await delivered(account);
    expect(sent.headers['webhook-signature']).toBe(
      `${signedWith(first.webhook_secret, sent)} ${signedWith(account.webhookSecret, sent)}`,
    );
  });

  it('with a grace of 0 signs with the new secret only, at once, and ends a grace under way', async () => {
    const account = await t.createAccount('Immediate');
    const second = (await rotate(account.id)).webhook_secret;
    const third = await rotate(account.id, '--webhook-grace-hours', '0');
    expect(third.webhook_secret_previous_until).toBeNull();
    const sent = await delivered(account);
    expect(sent.headers['webhook-signature']).toBe(signedWith(third.webhook_secret, sent));
    expect(verify(second, sent.headers, sent.body)).toBe(false);
    const row = await accountRow(account.id);
    expect([row.webhook_secret_previous_enc, row.webhook_secret_previous_until]).toEqual([
      null,
      null,
    ]);
  });

  it('a full rotation gives the webhook secret the grace too; a tokens-only one leaves it alone', async () => {
    const account = await t.createAccount('Full');
    const tokens = await runOnContext(
      ['accounts', 'rotate', account.id, '--only', 'tokens'],
      t.ctx,
    );
    expect(tokens.code, tokens.stderr).toBe(0);
    expect((await accountRow(account.id)).webhook_secret_previous_enc).toBeNull();
    const all = await runOnContext(['accounts', 'rotate', account.id, '--json'], t.ctx);
    expect(all.code, all.stderr).toBe(0);
    const fresh = (JSON.parse(all.stdout) as { webhook_secret: string }).webhook_secret;
    const sent = await delivered(account);
    expect(sent.headers['webhook-signature']).toBe(
      `${signedWith(fresh, sent)} ${signedWith(account.webhookSecret, sent)}`,
    );
    expect(await auditActions(account.id)).toEqual([
      'cobro accounts rotate',
      'cobro accounts rotate --webhook-grace-hours 24',
    ]);
  });

  it('refuses a negative, too long or unreadable grace with a clear error, changing nothing', async () => {
    const account = await t.createAccount('Refused');
    const before = await accountRow(account.id);
    const cases: [string[], number, string][] = [
      [
        ['--webhook-grace-hours=-1'],
        2,
        '--webhook-grace-hours must be a whole number from 0 to 72',
      ],
      [
        ['--webhook-grace-hours', 'abc'],
        2,
        '--webhook-grace-hours must be a whole number from 0 to 72',
      ],
      [
        ['--webhook-grace-hours', '1.5'],
        2,
        '--webhook-grace-hours must be a whole number from 0 to 72',
      ],
      [
        ['--webhook-grace-hours', ''],
        2,
        '--webhook-grace-hours must be a whole number from 0 to 72',
      ],
      // Past the bound is a usage error too (decision 1145; it exited 1 with the service's refusal).
      [
        ['--webhook-grace-hours', '73'],
        2,
        '--webhook-grace-hours must be a whole number from 0 to 72',
      ],
    ];
    for (const [options, code, message] of cases) {
      const run = await runOnContext(['accounts', 'rotate', account.id, ...options], t.ctx);
      expect([run.code, run.stderr.trim(), run.stdout]).toEqual([code, message, '']);
    }
    // The service checks too, for any caller.
    for (const hours of [-1, 73, 1.5, Number.NaN]) {
      const result = await rotateAccount(t.ctx, account.id, 'webhook-secret', {
        webhookGraceHours: hours,
      });
      expect(result).toEqual({
        ok: false,
        error: '--webhook-grace-hours must be a whole number from 0 to 72',
      });
    }
    expect(await accountRow(account.id)).toEqual(before);
    expect(await auditActions(account.id)).toEqual([]);
  });
});

const onPostgres = process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== '';

describe.runIf(onPostgres)('two rotations with a grace at once (PostgreSQL)', () => {
  it('gives one its grace and refuses the other, which changed nothing', async () => {
    const account = await t.createAccount('Race');
    const run = () =>
      runOnContext(
        [
          'accounts',
          'rotate',
          account.id,
          '--only',
          'webhook-secret',
          '--webhook-grace-hours',
          '2',
          '--json',
        ],
        t.ctx,
      );
    // Both start while another connection holds the account's row, so both are past any read before either writes.
    const ends = (await raceBehindHeldLock(
      t.ctx.db,
      t.ctx.db,
      (tx) =>
        tx.selectFrom('accounts').select('id').where('id', '=', account.id).forUpdate().execute(),
      run,
      run,
    )) as { code: number; stdout: string; stderr: string }[];
    expect(ends.map((e) => e.code).sort()).toEqual([0, 1]);
    const won = ends.find((e) => e.code === 0)!;
    const refused = ends.find((e) => e.code === 1)!;
    expect([refused.stdout, refused.stderr]).toEqual([
      '',
      expect.stringContaining(`cobro accounts show ${account.id} shows the current secret`),
    ]);
    const row = await accountRow(account.id);
    expect(t.ctx.secrets.open(row.webhook_secret_enc)).toBe(
      (JSON.parse(won.stdout) as { webhook_secret: string }).webhook_secret,
    );
    expect(t.ctx.secrets.open(row.webhook_secret_previous_enc!)).toBe(account.webhookSecret);
    const sent = await delivered(account);
    expect(verify(account.webhookSecret, sent.headers, sent.body, toleranceSec)).toBe(true);
    expect(await auditActions(account.id)).toEqual([
      'cobro accounts rotate --webhook-grace-hours 2',
    ]);
  });
});
