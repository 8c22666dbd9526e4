// The client against a listening app: transactions, marketplace, events, reference data and auth failures.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isFailed, type CobroClient } from '../../packages/client/src/index.ts';
import type { TestAccount } from '../support/app.ts';
import { startLiveApp, type LiveApp } from './live-app.ts';

let live: LiveApp;
let merchant: TestAccount;
let client: CobroClient;
beforeAll(async () => {
  live = await startLiveApp();
  merchant = await live.t.createAccount('Resources merchant');
  client = live.clientFor(merchant);
});
afterAll(async () => {
  await live.close();
});

describe('CobroClient resources over HTTP', () => {
  it('lists banks and payment methods without credentials, filtered by currency', async () => {
    const banks = await client.listBanks({ currency: 'clp' });
    expect(banks.httpStatus).toBe(200);
    if (isFailed(banks.body)) throw new Error(banks.body.message_error);
    expect(banks.body.banks.length).toBeGreaterThan(0);
    expect(new Set(banks.body.banks.map((b) => b.currency))).toEqual(new Set(['CLP']));
    const methods = await client.listPaymentMethods();
    expect(methods.body).toMatchObject({
      status: 'success',
      payment_methods: expect.arrayContaining([expect.objectContaining({ currency: 'CLP' })]),
    });
    const unknown = await client.listBanks({ currency: 'XXX' });
    expect(unknown).toMatchObject({
      httpStatus: 400,
      body: { status: 'failed', errors: { currency: 'invalid' } },
    });
  });

  it("creates a transaction, reads it back by id and finds it in the day's list", async () => {
    const created = await client.createTransaction({
      email: 'payer@example.com',
      order: 'client-order-1',
      subject: 'Client test',
      amount: 2500,
    });
    expect(created.httpStatus).toBe(200);
    if (isFailed(created.body)) throw new Error(created.body.message_error);
    expect(created.body).toMatchObject({
      status: 'pending',
      url: expect.stringContaining('/gateway/'),
    });
    const got = await client.getTransaction(created.body.id);
    expect(got.httpStatus).toBe(200);
    expect(got.body).toMatchObject({
      id: created.body.id,
      order: 'client-order-1',
      email: 'payer@example.com',
      amount: '2500',
    });
    const list = await client.listTransactions({ pending: 'true' });
    expect(list.httpStatus).toBe(200);
    // The list names transactions by their numeric id (seed quirk), so match on the order.
    expect(list.body).toMatchObject({
      transaction: [
        expect.objectContaining({ order: 'client-order-1', amount: 2500, status: 'pending' }),
      ],
    });
    const missing = await client.getTransaction('nope');
    expect(missing).toMatchObject({ httpStatus: 404, body: { status: 'failed' } });
  });

  it('creates a marketplace client, updates it with a signed PUT, reads it, and suspends it', async () => {
    const created = await client.createMarketplaceClient({
      email: 'johndoe@example.com',
      name: 'John Doe',
      phone: '923122312',
      bank: { sbif: '0001', type: '1', num: '12312313121', rut: '111111111' },
    });
    expect(created.httpStatus).toBe(200);
    if (isFailed(created.body)) throw new Error(created.body.message_error);
    const id = created.body.id;
    const updated = await client.updateMarketplaceClient(id, {
      name: 'Jane Doe',
      bank: { type: 3 },
    });
    expect(updated.httpStatus).toBe(200);
    expect(updated.body).toMatchObject({
      id,
      name: 'Jane Doe',
      bank: { type: '3', sbif: '0001' },
      affiliations_details: [],
    });
    const got = await client.getMarketplaceClient(id);
    expect(got.body).toMatchObject({ id, name: 'Jane Doe', bank: { type: '3' } });

    const membership = await client.createMembership({
      name: 'market1',
      percentage: '20',
      affiliation: [[id, '80']],
    });
    expect(membership.httpStatus).toBe(200);
    if (isFailed(membership.body)) throw new Error(membership.body.message_error);
    const gotMembership = await client.getMembership(membership.body.id);
    expect(gotMembership.body).toMatchObject({
      id: membership.body.id,
      percentage: '20.00',
      affiliations: [{ id, percentage: '80.00' }],
    });
    expect(await client.deleteMembership(membership.body.id)).toEqual({
      httpStatus: 200,
      body: { status: 'suspended', id: membership.body.id },
    });
    expect(await client.deleteMarketplaceClient(id)).toEqual({
      httpStatus: 200,
      body: { status: 'suspended', id },
    });
  });

  it("creates an event and reads it by the merchant's identifier", async () => {
    const created = await client.createEvent({
      event: 'client-ev-1',
      name: 'Client event',
      date_event: '2026-12-20',
      date_closing_sales: '2026-12-19 23:59:00',
      date_payment: '2026-12-22',
      service_sale: 10,
      affiliation: [
        ['a@example.com', 60],
        ['b@example.com', 40],
      ],
    });
    expect(created.httpStatus).toBe(200);
    expect(created.body).toMatchObject({
      status: 'success',
      id: 'client-ev-1',
      distribution: { affiliate: '100.00' },
    });
    const got = await client.getEvent('client-ev-1');
    expect(got.httpStatus).toBe(200);
    expect(got.body).toMatchObject({
      id: 'client-ev-1',
      event: 'Client event',
      affiliations: [
        { email: 'a@example.com', percent: '60.00' },
        { email: 'b@example.com', percent: '40.00' },
      ],
    });
  });

  it('returns a 401 body (not an exception) for a wrong private token on a signed route', async () => {
    const wrongKey = live.clientFor(merchant, { privateToken: 'not-the-private-token' });
    expect(await wrongKey.getWallet()).toEqual({
      httpStatus: 401,
      body: expect.objectContaining({ status: 'failed', message_error: 'invalid sign' }),
    });
    const updated = await wrongKey.updateMarketplaceClient('ma-any', { name: 'X' });
    expect(updated).toMatchObject({
      httpStatus: 401,
      body: { status: 'failed', message_error: 'invalid sign' },
    });
    expect(isFailed(updated.body)).toBe(true);
    // Unsigned routes need no Sign, but the client's Cobro-Signature (keyed with the private token) is checked there.
    expect(await wrongKey.getEvent('client-ev-1')).toMatchObject({
      httpStatus: 401,
      body: { status: 'failed', message_error: 'invalid Cobro-Signature' },
    });
  });

  it('returns a 401 body for an unknown public token', async () => {
    const stranger = live.clientFor(merchant, { publicToken: 'f'.repeat(32) });
    expect(await stranger.getEvent('client-ev-1')).toMatchObject({
      httpStatus: 401,
      body: { status: 'failed', message_error: 'invalid token' },
    });
  });

  it('signs the decoded path, so an id with spaces, slashes and unicode reaches the route (404, not 401)', async () => {
    for (const id of ['a b', 'x/y', 'ñandú*', '%41']) {
      expect(await client.getPayout(id)).toMatchObject({
        httpStatus: 404,
        body: { status: 'failed' },
      });
    }
  });
});
