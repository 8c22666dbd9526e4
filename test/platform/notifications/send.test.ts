import { afterEach, describe, expect, it } from 'vitest';
import { sendWebhook } from '../../../src/platform/notifications/send.ts';
import { limits } from '../../../src/limits/index.ts';

const { responseExcerptBytesMax } = limits;
import { receiverPool } from '../../support/receiver.ts';

/** Whose callbacks these are: a trusted origin's accounts are checked against it (decision 987). */
const anAccount = 'acc0123456789abcdef0';

const receivers = receiverPool();
afterEach(() => receivers.closeAll());

const receiver = receivers.start;

const post = (url: string, timeoutMs = 5000) =>
  sendWebhook({
    url,
    headers: { 'content-type': 'application/json', 'webhook-id': 'msg_test' },
    body: '{"a":1}',
    policy: { mode: 'sandbox', callbackTrustedOrigins: new Map() },
    accountId: anAccount,
    timeoutMs,
  });

describe('sendWebhook', () => {
  it('posts the body with the given headers and reports a 2xx', async () => {
    const r = await receiver(() => ({ status: 204 }));
    const result = await post(`${r.url}/notify?order=7`);
    expect(result).toMatchObject({ statusCode: 204, error: null });
    expect(r.requests[0]).toMatchObject({
      method: 'POST',
      path: '/notify?order=7',
      body: '{"a":1}',
    });
    expect(r.requests[0]!.headers['webhook-id']).toBe('msg_test');
    expect(r.requests[0]!.headers['content-length']).toBe('7');
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const target = await receiver();
    const r = await receiver(() => ({
      status: 302,
      headers: { location: `${target.url}/elsewhere` },
    }));
    const result = await post(r.url);
    expect(result).toMatchObject({ statusCode: 302, error: 'HTTP 302' });
    expect(target.requests).toHaveLength(0);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const r = await receiver(() => 'hang');
    const result = await post(r.url, 300);
    expect(result).toMatchObject({ statusCode: null, error: 'timed out after 300 ms' });
    expect(r.requests).toHaveLength(1);
  });

  it('keeps only the first KiB of a long answer', async () => {
    const r = await receiver(() => ({ status: 500, body: 'x'.repeat(200_000) }));
    const result = await post(r.url);
    expect(result.statusCode).toBe(500);
    expect(result.responseExcerpt).toHaveLength(responseExcerptBytesMax);
  });

  it('reports an unreachable receiver as an error', async () => {
    const r = await receiver();
    const url = r.url;
    await receivers.closeAll();
    const result = await post(url);
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/ECONNREFUSED/);
  });
});
