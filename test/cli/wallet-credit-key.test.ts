// Decision 720: `cobro wallet credit --key K`. A credit run again with its key (after a kill that cut it short before
// it printed, or by mistake) credits nothing and prints the first credit; the key with another amount or currency is
// refused; the same key on another account is that account's own. Without --key, a second run credited twice and
// docs/wallet.md told the operator to look for the credit first; since decision 1155 the key is required and held to
// the API's Idempotency-Key rule (a blank key was taken as one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { balance } from '../modules/wallet/wallet-helpers.ts';
import { verifyLedger } from '../../src/platform/ledger/verify.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

const credit = (account: string, amount: string, ...more: string[]) =>
  dispatch(
    ['wallet', 'credit', '--account', account, '--amount', amount, '--reason', 'ticket', ...more],
    t.ctx,
  );

async function auditRows(accountId: string): Promise<number> {
  const rows = await t.ctx.db
    .selectFrom('audit_log')
    .select('id')
    .where('chain', '=', accountId)
    .where('action', '=', 'cobro wallet credit')
    .execute();
  return rows.length;
}

describe('cobro wallet credit --key', () => {
  it('run twice with one key: credits once, and the second run prints the first credit', async () => {
    const a = await t.createAccount();
    const first = await credit(a.id, '25000', '--key', 'TICKET-118', '--json');
    expect(first.exitCode, first.stderr).toBe(0);
    const made = JSON.parse(first.stdout);
    expect(made).toMatchObject({ amount_available: '25000', currency: 'CLP' });

    const again = await credit(a.id, '25000', '--key', 'TICKET-118', '--json');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ ...made, already: true });
    const text = await credit(a.id, '25000', '--key', 'TICKET-118');
    expect(text.stdout.trim()).toBe(
      `already credited 25000 CLP to ${a.id}: movement ${made.identifier_wallet}, available 25000 (--key TICKET-118); nothing credited now`,
    );

    expect(await balance(t, a)).toBe(25_000);
    // One audit row, the first run's: the runs that credited nothing record nothing (decision 810).
    expect(await auditRows(a.id)).toBe(1);
    const wallet = (await t.call(a, { method: 'GET', url: '/api/wallet', sign: true })).json();
    expect(wallet.wallet_movements).toHaveLength(1);
    expect(await verifyLedger(t.ctx.db)).toMatchObject({ ok: true });
  });

  it('refuses the key with another amount or currency, and credits nothing', async () => {
    const a = await t.createAccount();
    expect((await credit(a.id, '1000', '--key', 'K-1')).exitCode).toBe(0);
    const audited = await auditRows(a.id);
    for (const more of [
      ['--key', 'K-1'],
      ['--key', 'K-1', '--currency', 'PEN'],
    ]) {
      const amount = more.length === 2 ? '2000' : '1000';
      const out = await credit(a.id, amount, ...more);
      expect(out.exitCode).toBe(1);
      expect(out.stderr).toContain('--key K-1 credited 1000 CLP');
      expect(out.stderr).toContain('nothing was credited');
    }
    expect(await balance(t, a)).toBe(1_000);
    expect(await auditRows(a.id)).toBe(audited);
  });

  it("a key is the account's own; another key is another credit; a bad key is refused", async () => {
    const a = await t.createAccount();
    const b = await t.createAccount();
    expect((await credit(a.id, '500', '--key', 'shared')).exitCode).toBe(0);
    expect((await credit(b.id, '700', '--key', 'shared')).exitCode).toBe(0);
    expect((await credit(a.id, '500', '--key', 'other')).exitCode).toBe(0);
    expect(await balance(t, a)).toBe(1_000);
    expect(await balance(t, b)).toBe(700);
    // Blank, overlong, or a character no Idempotency-Key header carries (the API's rule, decision 1155).
    for (const bad of [
      '',
      ' ',
      '\t \n',
      'k'.repeat(101),
      'T-1\nT-2',
      'T\u00001',
      'T\u001b[2J',
      'チケット',
    ]) {
      const out = await credit(a.id, '1', '--key', bad);
      expect(out.exitCode, JSON.stringify(bad)).toBe(2);
      expect(out.stderr).toContain('--key must have 1 to 100 characters');
      expect(out.stdout).toBe('');
    }
    expect(await balance(t, a)).toBe(1_000);
    // The spaces around a key are not the key's, as the header's are not: ` other ` is the key `other` again.
    const spaced = await credit(a.id, '500', '--key', ' other ');
    expect(spaced.exitCode, spaced.stderr).toBe(0);
    expect(spaced.stdout).toContain('already credited 500 CLP');
    // 100 characters, Latin-1 included, is a key.
    expect((await credit(a.id, '1', '--key', `Ñ${'k'.repeat(99)}`)).exitCode).toBe(0);
    expect(await balance(t, a)).toBe(1_001);
  });

  it('a credit without --key is refused, exit 2, nothing credited: run again it would credit twice', async () => {
    const a = await t.createAccount();
    for (let run = 0; run < 2; run++) {
      const out = await credit(a.id, '25000');
      expect(out.exitCode).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toMatch(/^wallet credit needs --key KEY/);
    }
    expect(await balance(t, a)).toBe(0);
    expect(await auditRows(a.id)).toBe(0);
  });
});
