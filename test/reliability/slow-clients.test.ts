// A client sending slowly cannot hold a connection (decision 072): a body trickled at 1 byte/s, headers trickled
// the same way and an idle keep-alive socket are all cut within their configured timeouts, on a real listening server.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpLimits } from '../../src/limits/index.ts';
import { startTestApp, type TestAccount, type TestApp } from '../support/app.ts';

const requestTimeoutMs = 2_000;
const headersTimeoutMs = 1_000;
const keepAliveTimeoutMs = 500;
/** Node looks for late requests every timeoutCheckIntervalMs; a little more for a loaded machine. */
const slackMs = httpLimits.timeoutCheckIntervalMs + 1_500;

let t: TestApp;
let account: TestAccount;
let port: number;
beforeAll(async () => {
  t = await startTestApp({
    env: {
      HTTP_REQUEST_TIMEOUT_MS: String(requestTimeoutMs),
      HTTP_HEADERS_TIMEOUT_MS: String(headersTimeoutMs),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(keepAliveTimeoutMs),
    },
  });
  account = await t.createAccount();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await t.close();
});

interface Outcome {
  readonly closedAfterMs: number;
  readonly response: string;
  readonly bytesSent: number;
}

/** Connects, sends `head` at once, then `trickle` one byte a second until the server closes the connection. */
function trickle(head: string, trickled: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const startedAt = performance.now();
    let response = '';
    let bytesSent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (bytesSent >= trickled.length) return;
        socket.write(trickled[bytesSent]!);
        bytesSent += 1;
      }, 1_000);
    });
    socket.on('data', (chunk: Buffer) => {
      response += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: performance.now() - startedAt, response, bytesSent });
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error('the server never closed the connection'));
    }, 30_000).unref();
  });
}

describe('slow clients on a real listening server', () => {
  it('cuts a body trickled at 1 byte/s within the request timeout, answering 408, and runs nothing', async () => {
    const body = JSON.stringify({
      email: 'slow@example.com',
      order: 'slow-1',
      subject: 'Lento',
      amount: 1000,
    });
    const head = [
      'POST /api/transaction HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      'Accept: application/json',
      `Authorization: Bearer ${account.publicToken}`,
      `Content-Length: ${body.length}`,
      '',
      '',
    ].join('\r\n');
    const outcome = await trickle(head, body);
    expect(outcome.bytesSent).toBeLessThan(body.length);
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(requestTimeoutMs - 100);
    expect(outcome.closedAfterMs).toBeLessThan(requestTimeoutMs + slackMs);
    expect(outcome.response).toMatch(/^HTTP\/1\.1 408 /);
    expect(await t.ctx.db.selectFrom('transactions').select('id').execute()).toEqual([]);
  });

  it('cuts headers trickled at 1 byte/s within the headers timeout (slowloris)', async () => {
    const outcome = await trickle(
      'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n',
      `X-Slow: ${'a'.repeat(60)}`,
    );
    expect(outcome.closedAfterMs).toBeLessThan(headersTimeoutMs + slackMs);
    expect(outcome.response).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const outcome = await trickle('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', '');
    expect(outcome.response).toMatch(/^HTTP\/1\.1 200 /);
    expect(outcome.response.toLowerCase()).toContain('connection: keep-alive');
    expect(outcome.closedAfterMs).toBeLessThan(keepAliveTimeoutMs + slackMs);
  });
});
