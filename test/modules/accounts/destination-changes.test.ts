// Changes to where money goes are recorded and called back to the merchant (decision 140, issue 14 point 2).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolve as resolveCommand, runResolved } from '../../../src/cli/dispatch.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../support/app.ts';
import { createClient } from '../marketplace/helpers.ts';

let t: TestApp;
let merchant: TestAccount;
beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createAccount('Destinations');
});
afterAll(async () => {
  await t.close();
});

async function cli(...args: string[]) {
  const resolved = resolveCommand(args);
  if (!('command' in resolved)) throw new Error(resolved.stderr);
  return runResolved(resolved, t.ctx);
}

const changesOf = (accountId: string) =>
  t.ctx.db
    .selectFrom('destination_changes')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('changed_at')
    .orderBy('id')
    .execute();
const callbacksOf = (accountId: string) =>
  t.ctx.db
    .selectFrom('notifications')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('event_type', '=', 'destination.changed')
    .orderBy('created_at')
    .execute();

describe('destination changes', () => {
  it("records a client's new bank account and calls it back, masked; other updates record nothing", async () => {
    const set = await cli(
      'accounts',
      'set-notify-url',
      merchant.id,
      '--url',
      'https://shop.example.com/events',
      '--json',
    );
    expect(JSON.parse(set.stdout)).toEqual({
      id: merchant.id,
      notify_url: 'https://shop.example.com/events',
    });
    const id = await createClient(t, merchant);
    expect(await changesOf(merchant.id)).toEqual([]);

    const put = (body: object, headers: Record<string, string> = {}) =>
      t.call(merchant, { method: 'PUT', url: `/api/maclient/${id}`, sign: true, body, headers });
    expect((await put({ name: 'Renamed' })).statusCode).toBe(200);
    expect((await put({ bank: { num: '12312313121' } })).statusCode).toBe(200);
    expect(await changesOf(merchant.id)).toEqual([]);
    // A refused change records nothing.
    expect((await put({ bank: { rut: '111111112' } })).statusCode).toBe(400);
    expect(await changesOf(merchant.id)).toEqual([]);

    const moved = await put(
      { bank: { num: '99998888', sbif: '0012' } },
      { 'idempotency-key': 'move-1' },
    );
    expect(moved.statusCode).toBe(200);
    // A retry with the same key replays: still one change, one callback.
    expect(
      (await put({ bank: { num: '99998888', sbif: '0012' } }, { 'idempotency-key': 'move-1' }))
        .headers['idempotent-replayed'],
    ).toBe('true');
    const changes = await changesOf(merchant.id);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      subject: 'marketplace_client_bank',
      subject_id: id,
      source: 'api',
      previous: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
      current: { sbif: '0012', type: '1', num: '99998888', rut: '111111111' },
    });
    const callbacks = await callbacksOf(merchant.id);
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0]!.id).toBe(changes[0]!.notification_id);
    expect(callbacks[0]!.url).toBe('https://shop.example.com/events');
    expect(JSON.parse(callbacks[0]!.body!)).toEqual({
      id: changes[0]!.id,
      type: 'destination.changed',
      subject: 'marketplace_client_bank',
      subject_id: id,
      source: 'api',
      changed_at: '2026-03-10 12:00:00',
      previous: { sbif: '0001', type: '1', num_last4: '3121', rut: '111111111' },
      current: { sbif: '0012', type: '1', num_last4: '8888', rut: '111111111' },
    });
    expect(callbacks[0]!.body).not.toContain('99998888');
  });

  it("records the account's own bank account set by an operator, first and changed", async () => {
    const other = await t.createAccount('Own bank');
    const setBank = (num: string) =>
      cli(
        'accounts',
        'set-bank',
        other.id,
        '--sbif',
        '0001',
        '--type',
        '1',
        '--num',
        num,
        '--rut',
        '761234567',
        '--name',
        'Comercio SpA',
      );
    expect((await setBank('1234567')).exitCode).toBe(0);
    expect((await setBank('1234567')).exitCode).toBe(0);
    // No notify URL yet: recorded, not called back.
    let changes = await changesOf(other.id);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      subject: 'account_bank',
      subject_id: other.id,
      source: 'cli',
      // A sandbox account starts with the sandbox's test bank account (decision 755).
      previous: { sbif: '0001', type: '1', num: '000123456789', rut: '111111111' },
      notification_id: null,
    });
    expect(
      (await cli('accounts', 'set-notify-url', other.id, '--url', 'http://127.0.0.1:9/hook'))
        .exitCode,
    ).toBe(0);
    t.clock.advanceMs(1000);
    expect((await setBank('7654321')).exitCode).toBe(0);
    changes = await changesOf(other.id);
    expect(changes).toHaveLength(2);
    expect(changes[1]).toMatchObject({ previous: { num: '1234567' }, current: { num: '7654321' } });
    const callbacks = await callbacksOf(other.id);
    expect(callbacks.map((c) => JSON.parse(c.body!).current.num_last4)).toEqual(['4321']);
  });

  it('validates the notify URL', async () => {
    expect(
      (await cli('accounts', 'set-notify-url', merchant.id, '--url', 'ftp://x')).exitCode,
    ).toBe(2);
    expect(
      (
        await cli(
          'accounts',
          'set-notify-url',
          merchant.id,
          '--url',
          `https://x/${'a'.repeat(600)}`,
        )
      ).exitCode,
    ).toBe(2);
    expect(
      (await cli('accounts', 'set-notify-url', 'acc_none', '--url', 'https://x')).exitCode,
    ).toBe(2);
    expect((await cli('accounts', 'set-notify-url', merchant.id)).exitCode).toBe(2);
    expect(
      JSON.parse(
        (await cli('accounts', 'set-notify-url', merchant.id, '--clear', '--json')).stdout,
      ),
    ).toEqual({ id: merchant.id, notify_url: null });
  });
});
