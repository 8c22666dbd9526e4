// Decision 1240: how each failure of a call through the `fintoc` client reads. The client names an error answer's
// class by the type its body gives, not by its status; Cobro's reader goes by the status: a 4xx (409 and 429 aside,
// decision 1245) is a refusal, anything else (a 5xx whatever its body, a body that cannot be read, no answer) may have happened.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fintocApi, fintocRefused } from '../../../src/platform/processors/fintoc-client.ts';
import { fintocAnsweredStatus } from '../../../src/platform/processors/fintoc-failure.ts';

let answer: { status: number; type: string; body: string } | 'hang' = 'hang';
let server: http.Server;
let url = '';

beforeAll(async () => {
  server = http.createServer((_req, res) => {
    if (answer === 'hang') return; // no answer: the caller's timeout ends the call
    res.writeHead(answer.status, { 'content-type': answer.type });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const json = 'application/json';
const fintocError = (type: string) => JSON.stringify({ error: { type, message: 'm' } });

/** What a refund's create throws under `a`, read by Cobro's reader. */
async function read(a: typeof answer, baseUrl = url) {
  answer = a;
  const api = fintocApi({ baseUrl, secretKey: 'sk_test_x', jwsPrivateKey: null, timeoutMs: 300 });
  const error = await api.createRefund({ resource_id: 'pi_1' }, 'key-1').then(
    () => null,
    (e: unknown) => e,
  );
  return {
    refused: fintocRefused(error),
    status: fintocAnsweredStatus(error),
    threw: error !== null,
  };
}

describe("a Fintoc call's failure", () => {
  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [404, 'invalid_request_error'],
  ])('a %i answer (%s) is a refusal', async (status, type) => {
    expect(await read({ status, type: json, body: fintocError(type) })).toEqual({
      refused: true,
      status,
      threw: true,
    });
  });

  it.each([
    [409, json, fintocError('invalid_request_error')],
    [429, json, fintocError('rate_limit_error')],
    [500, json, fintocError('api_error')],
    [503, json, fintocError('invalid_request_error')],
    [502, 'text/html', '<html>bad gateway</html>'],
    [200, 'text/html', '<html>ok</html>'],
    [201, json, ''],
    [200, json, '{"id":"ref_1","status":"succe'],
  ])('a %i answer (%s) may have happened', async (status, type, body) => {
    expect(await read({ status, type, body })).toEqual({ refused: false, status, threw: true });
  });

  it('no answer in time, or no connection, may have happened', async () => {
    expect(await read('hang')).toEqual({ refused: false, status: null, threw: true });
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await read('hang', `http://127.0.0.1:${port}`)).toEqual({
      refused: false,
      status: null,
      threw: true,
    });
  });

  it('a readable answer is the object Fintoc sent', async () => {
    answer = { status: 201, type: json, body: JSON.stringify({ id: 'ref_1', status: 'created' }) };
    const api = fintocApi({
      baseUrl: url,
      secretKey: 'sk_test_x',
      jwsPrivateKey: null,
      timeoutMs: 300,
    });
    expect(await api.createRefund({ resource_id: 'pi_1' }, 'key-2')).toMatchObject({
      id: 'ref_1',
      status: 'created',
    });
  });
});
