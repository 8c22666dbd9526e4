// Decision 1045 (finding on decision 1000): `cobro accounts rotate ID --only tokens --webhook-grace-hours N` rotated the
// tokens and dropped the grace without a word (exit 0): the webhook secret is not rotated, so there is no grace to
// give, and an operator who typed one believed a secret rotation had one. The combination is refused, nothing changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { runOnContext } from '../support/cli-in-process.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const credentials = (id: string) =>
  t.ctx.db
    .selectFrom('accounts')
    .select([
      'public_token_hash',
      'webhook_secret_enc',
      'webhook_secret_previous_enc',
      'webhook_secret_previous_until',
    ])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

describe('cobro accounts rotate --only tokens --webhook-grace-hours', () => {
  it('is refused with exit 2, nothing rotated', async () => {
    const account = await t.createAccount('Only tokens');
    const before = await credentials(account.id);
    const run = await runOnContext(
      ['accounts', 'rotate', account.id, '--only', 'tokens', '--webhook-grace-hours', '5'],
      t.ctx,
    );
    expect([run.code, run.stderr.trim(), run.stdout]).toEqual([
      2,
      '--webhook-grace-hours applies to a rotation of the webhook secret, not to --only tokens',
      '',
    ]);
    expect(await credentials(account.id)).toEqual(before);
  });

  it('--only tokens alone still rotates the tokens and leaves the webhook secret', async () => {
    const account = await t.createAccount('Tokens alone');
    const before = await credentials(account.id);
    const run = await runOnContext(['accounts', 'rotate', account.id, '--only', 'tokens'], t.ctx);
    expect(run.code, run.stderr).toBe(0);
    const after = await credentials(account.id);
    expect(after.public_token_hash).not.toBe(before.public_token_hash);
    expect(after.webhook_secret_enc).toBe(before.webhook_secret_enc);
    expect(after.webhook_secret_previous_until).toBeNull();
  });
});
