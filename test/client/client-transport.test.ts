// What the client puts on the wire and how it fails when there is no usable answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CobroClient, CobroClientError, isFailed } from '../../packages/client/src/index.ts';
import { verifySign } from '../../src/platform/auth/sign.ts';
import type { TestAccount } from '../support/app.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { startLiveApp, type LiveApp } from './live-app.ts';
import { freePort } from '../support/net.ts';

interface Sent {
  readonly method: string;
  readonly url: URL;
  readonly headers: Headers;
  readonly body: string | null;
}

let live: LiveApp;
let merchant: TestAccount;
let receiver: Receiver;
beforeAll(async () => {
  live = await startLiveApp();
  merchant = await live.t.createAccount();
  // Hangs on /hang; answers an HTML page on anything else, like a proxy in front of a dead upstream.
  receiver = await startReceiver((req) =>
    req.path.startsWith('/hang')
      ? 'hang'
      : { status: 502, body: '<html>Bad Gateway</html>', headers: { 'content-type': 'text/html' } },
  );
});
afterAll(async () => {
  await receiver.close();
  await live.close();
});

/** A client whose fetch records each request before passing it to the real global fetch. */
function recordingClient(sent: Sent[]): CobroClient {
  const recording: typeof fetch = async (input, init) => {
    sent.push({
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      headers: new Headers(init?.headers),
      body: typeof init?.body === 'string' ? init.body : null,
    });
    return fetch(input, init);
  };
  return live.clientFor(merchant, { fetch: recording });
}

async function thrown(promise: Promise<unknown>): Promise<CobroClientError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CobroClientError) return error;
    throw error;
  }
  throw new Error('expected a CobroClientError');
}

describe('CobroClient on the wire', () => {
  it('sends Sign only on signed routes, Bearer on authenticated ones, nothing on public ones', async () => {
    const sent: Sent[] = [];
    const client = recordingClient(sent);
    await client.listBanks();
    await client.getEvent('none');
    await client.getWallet({ currency: 'CLP', page: 2 });
    await client.createPayout(
      {
        email: 'a@example.com',
        subject: 's',
        currency: 'CLP',
        order: 'o',
        amount: 5,
        accountbank_name: 'n',
        accountbank_rut: '111111111',
        accountbank_sbif: '0001',
        accountbank_type: '1',
        accountbank_num: '1',
      },
      { idempotencyKey: 'key-1' },
    );
    const [banks, event, wallet, payout] = sent as [Sent, Sent, Sent, Sent];
    for (const request of sent) expect(request.headers.get('accept')).toBe('application/json');

    expect(banks.headers.has('authorization')).toBe(false);
    expect(banks.headers.has('sign')).toBe(false);
    expect(event.headers.get('authorization')).toBe(`Bearer ${merchant.publicToken}`);
    expect(event.headers.has('sign')).toBe(false);

    expect(wallet.url.pathname + wallet.url.search).toBe('/api/wallet?currency=CLP&page=2');
    expect(
      verifySign(
        merchant.privateToken,
        '/api/wallet',
        { currency: 'CLP', page: '2' },
        wallet.headers.get('sign') ?? '',
      ),
    ).toBe(true);
    expect(wallet.body).toBeNull();

    expect(payout.headers.get('idempotency-key')).toBe('key-1');
    expect(payout.headers.get('content-type')).toBe('application/json');
    const body = JSON.parse(payout.body ?? 'null') as Record<string, unknown>;
    expect(
      verifySign(
        merchant.privateToken,
        '/api/wallet/payout',
        body,
        payout.headers.get('sign') ?? '',
      ),
    ).toBe(true);
  });

  it('sends no body on a body-less POST or DELETE, which the server accepts', async () => {
    const sent: Sent[] = [];
    const client = recordingClient(sent);
    const retried = await client.retryNotification('ntf-none');
    const deleted = await client.deleteMembership('none');
    expect(sent.map((s) => [s.method, s.body, s.headers.has('content-type')])).toEqual([
      ['POST', null, false],
      ['DELETE', null, false],
    ]);
    expect(retried).toMatchObject({ httpStatus: 404, body: { status: 'failed' } });
    expect(deleted).toMatchObject({ httpStatus: 404, body: { status: 'failed' } });
  });

  it('throws a network CobroClientError when nothing listens', async () => {
    const client = new CobroClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      publicToken: 'p',
      privateToken: 'k',
    });
    const error = await thrown(client.listBanks());
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(
      /^GET \/api\/banks to http:\/\/127\.0\.0\.1:\d+ failed: fetch failed/,
    );
  });

  it('throws a timeout CobroClientError when the server does not answer in time', async () => {
    const client = new CobroClient({
      baseUrl: `${receiver.url}/hang`,
      publicToken: 'p',
      privateToken: 'k',
      timeoutMs: 50,
    });
    const error = await thrown(client.getEvent('slow'));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe('GET /api/event/slow timed out after 50 ms');
    const perCall = await thrown(client.getEvent('slower', { timeoutMs: 20 }));
    expect(perCall.message).toBe('GET /api/event/slower timed out after 20 ms');
  });

  it('throws an aborted CobroClientError when the caller cancels', async () => {
    const client = new CobroClient({
      baseUrl: `${receiver.url}/hang`,
      publicToken: 'p',
      privateToken: 'k',
    });
    const controller = new AbortController();
    const pending = client.getEvent('cancelled', { signal: controller.signal });
    controller.abort();
    const error = await thrown(pending);
    expect(error.kind).toBe('aborted');
  });

  it('throws an invalid_response CobroClientError carrying the status when the body is not JSON', async () => {
    const client = new CobroClient({ baseUrl: receiver.url, publicToken: 'p', privateToken: 'k' });
    const error = await thrown(client.getEvent('x'));
    expect(error.kind).toBe('invalid_response');
    expect(error.httpStatus).toBe(502);
    expect(error.message).toBe(
      'GET /api/event/x answered HTTP 502 with a body that is not JSON: "<html>Bad Gateway</html>"',
    );
  });

  it('refuses bad arguments before sending anything', async () => {
    const ok = { baseUrl: live.baseUrl, publicToken: 'p', privateToken: 'k' };
    expect(() => new CobroClient({ ...ok, baseUrl: 'not a url' })).toThrow(/baseUrl is not a URL/);
    expect(() => new CobroClient({ ...ok, baseUrl: 'ftp://example.com' })).toThrow(/http or https/);
    expect(() => new CobroClient({ ...ok, privateToken: '' })).toThrow(
      /privateToken must be a non-empty string/,
    );
    expect(() => new CobroClient({ ...ok, timeoutMs: 0 })).toThrow(/timeoutMs must be an integer/);
    expect(() => new CobroClient({ ...ok, timeoutMs: 1.5 })).toThrow(CobroClientError);
    const sent: Sent[] = [];
    const client = recordingClient(sent);
    expect((await thrown(client.getPayout(''))).kind).toBe('invalid_argument');
    expect((await thrown(client.getPayout('x', { timeoutMs: -1 }))).kind).toBe('invalid_argument');
    expect(sent).toEqual([]);
  });

  it('accepts a base URL with a trailing slash', async () => {
    const client = live.clientFor(merchant, { baseUrl: `${live.baseUrl}/` });
    expect((await client.getAccount()).httpStatus).toBe(200);
  });
});

describe('isFailed', () => {
  it('recognises both failure shapes and nothing else', () => {
    expect(isFailed({ status: 'failed', type: 'insufficient_funds', message_error: 'no' })).toBe(
      true,
    );
    expect(isFailed({ status: 'failed', message_error: 'date_init invalid' })).toBe(true);
    expect(isFailed({ status: 'success' })).toBe(false);
    // A transaction whose own status reads "failed" is data, not an error envelope.
    expect(isFailed({ status: 'failed', id: 'trx1', order: 'o' })).toBe(false);
    expect(isFailed(null)).toBe(false);
    expect(isFailed('failed')).toBe(false);
  });
});
