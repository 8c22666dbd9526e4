// The client against a listening app: signed wallet calls, payouts and their queries, HTTP-200 refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isFailed,
  type CobroClient,
  type CreatePayoutInput,
} from '../../packages/client/src/index.ts';
import type { TestAccount } from '../support/app.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { startLiveApp, type LiveApp } from './live-app.ts';
import { creditWallet } from '../../src/modules/wallet/wallet-credit.ts';
import { dispatch } from '../../src/cli/dispatch.ts';
import { limits } from '../../src/limits/index.ts';

let live: LiveApp;
let merchant: TestAccount;
let client: CobroClient;
let receiver: Receiver;
beforeAll(async () => {
  live = await startLiveApp();
  merchant = await live.t.createAccount('Client merchant');
  client = live.clientFor(merchant);
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await live.close();
});

const payoutInput = (overrides: Partial<CreatePayoutInput> = {}): CreatePayoutInput => ({
  email: 'johndoe@example.com',
  phone: '123456789',
  subject: 'PayOut 133222',
  currency: 'CLP',
  order: '133222',
  amount: 1000,
  accountbank_name: 'Jhon Doe',
  accountbank_rut: '111111111',
  accountbank_sbif: '0001',
  accountbank_type: '1',
  accountbank_num: '12312312312',
  url_notify: `${receiver.url}/payout`,
  ...overrides,
});

describe('CobroClient wallet and payouts over HTTP', () => {
  it('signs a GET without parameters: the account behind the credentials', async () => {
    const res = await client.getAccount();
    expect(res).toEqual({
      httpStatus: 200,
      body: { status: 'success', id: merchant.id, name: 'Client merchant', mode: 'sandbox' },
    });
  });

  it('credits the sandbox wallet and reads the balance with a signed GET carrying a query', async () => {
    const credited = await client.creditSandboxWallet({
      amount: 50_000,
      currency: 'CLP',
      reason: 'client test funds',
    });
    expect(credited.httpStatus).toBe(200);
    expect(credited.body).toMatchObject({
      status: 'success',
      amount_available: 50_000,
      currency: 'CLP',
    });
    const wallet = await client.getWallet({ currency: 'CLP', page: 1, per_page: 5 });
    expect(wallet.httpStatus).toBe(200);
    if (isFailed(wallet.body)) throw new Error(wallet.body.message_error);
    expect(wallet.body.amount_available).toBe(50_000);
    expect(wallet.body.filter).toMatchObject({ page: 1, per_page: 5, currency: 'CLP' });
    expect(wallet.body.wallet_movements[0]?.subject).toBe('client test funds');
  });

  it('creates a payout (signed POST), replays it by Idempotency-Key, and queries it three ways', async () => {
    const first = await client.createPayout(payoutInput(), { idempotencyKey: 'client-payout-1' });
    expect(first.httpStatus).toBe(200);
    if (isFailed(first.body) || !('identifier_payout' in first.body))
      throw new Error(JSON.stringify(first.body));
    const { identifier_payout: payoutId, identifier_wallet: movementId } = first.body;
    const replay = await client.createPayout(payoutInput(), { idempotencyKey: 'client-payout-1' });
    expect(replay).toEqual(first);

    const payout = await client.getPayout(payoutId);
    expect(payout.httpStatus).toBe(200);
    expect(payout.body).toMatchObject({
      payout: {
        id: payoutId,
        amount: '1000',
        email: 'johndoe@example.com',
        accountbank_sbif: '0001',
      },
    });
    const v3 = await client.getPayoutV3(payoutId);
    expect(v3.body).toMatchObject({
      payout: { id: payoutId, reason_rejection: expect.any(String) },
    });
    const movement = await client.getWalletMovement(movementId);
    expect(movement.httpStatus).toBe(200);
    expect(movement.body).toMatchObject({
      status: 'success',
      amount_available: 49_000,
      wallet_movements: [{ id: movementId }],
    });
    const list = await client.listWallet({ currency: 'CLP', per_page: 10 });
    expect(list.body).toMatchObject({ amount_available: 49_000 });
    if (isFailed(list.body)) throw new Error(list.body.message_error);
    expect(list.body.wallet_movements.map((m) => m.id)).toContain(movementId);
  });

  it('surfaces a refusal sent with HTTP 200 as a body isFailed() recognises, without throwing', async () => {
    const res = await client.createPayout(payoutInput({ order: 'too-much', amount: 10_000_000 }));
    expect(res.httpStatus).toBe(200);
    expect(isFailed(res.body)).toBe(true);
    expect(res.body).toMatchObject({ status: 'failed', type: 'insufficient_funds' });
  });

  it('delivers the payout callback once the sandbox clock moves (advanceSandboxClock), visible in listNotifications', async () => {
    const advanced = await client.advanceSandboxClock({ days: 2 });
    expect(advanced.httpStatus).toBe(200);
    expect(advanced.body).toMatchObject({ status: 'success', offset_seconds: 2 * 86_400 });
    const list = await client.listNotifications({ per_page: 10 });
    if (isFailed(list.body)) throw new Error(list.body.message_error);
    const payoutCallbacks = list.body.notifications.filter(
      (n) => n.url === `${receiver.url}/payout`,
    );
    expect(payoutCallbacks.length).toBeGreaterThan(0);
    const first = payoutCallbacks[0]!;
    const shown = await client.getNotification(first.id);
    expect(shown.body).toMatchObject({
      status: 'success',
      notification: { id: first.id, status: 'delivered' },
    });
    const retried = await client.retryNotification(first.id, { idempotencyKey: 'retry-1' });
    expect(retried.body).toMatchObject({
      status: 'success',
      notification: { id: first.id, status: 'pending' },
    });
    expect(receiver.requests.some((r) => r.path === '/payout')).toBe(true);
  });

  it('withdraw needs a bank account on file: a refusal with HTTP 200', async () => {
    // A sandbox account starts with a test bank account (decision 755); this one has had it removed.
    await live.t.ctx.db
      .deleteFrom('account_bank_accounts')
      .where('account_id', '=', merchant.id)
      .execute();
    const res = await client.withdraw({
      subject: 'Cash out',
      currency: 'CLP',
      order: 'w-1',
      amount: 100,
    });
    expect(res.httpStatus).toBe(200);
    expect(res.body).toMatchObject({
      status: 'failed',
      type: 'bank_account_missing',
      identifier_wallet: '',
    });
  });

  it('reads a balance past 2^53 - 1 exactly, as a bigint (decision 720)', async () => {
    const rich = await live.t.createAccount('Client rich merchant');
    const credited = await creditWallet(live.t.ctx, {
      accountId: rich.id,
      currency: 'CLP',
      amountMinor: limits.walletBalanceMinorMax,
      reason: 'to the bound',
      kind: 'adjustment',
    });
    expect(credited).not.toBeNull();
    // A credit to the bound, then money the merchant is owed past it: a rejected payout's return.
    const richClient = live.clientFor(rich);
    const made = await richClient.createPayout(payoutInput({ order: 'rich-1', amount: 4_000 }));
    expect(made.httpStatus).toBe(200);
    await creditWallet(live.t.ctx, {
      accountId: rich.id,
      currency: 'CLP',
      amountMinor: 4_000n,
      reason: 'back to the bound',
      kind: 'adjustment',
    });
    const id = (made.body as { identifier_payout: string }).identifier_payout;
    for (const status of ['processing', 'banking_error']) {
      expect(
        (await dispatch(['payouts', 'resolve', id, '--status', status], live.t.ctx)).exitCode,
      ).toBe(0);
    }
    const wallet = await richClient.getWallet({ currency: 'CLP', per_page: 1 });
    expect(wallet.httpStatus).toBe(200);
    expect((wallet.body as { amount_available: unknown }).amount_available).toBe(
      limits.walletBalanceMinorMax + 4_000n,
    );
  });
});
