// A connection kept alive for one account's callback to an origin trusted for it (local reach) never carries another
// account's callback to the same origin, which is checked at public reach (decision 987): the address guard runs only
// when a connection is opened, so the pools are kept apart by reach. A real TLS receiver on 127.0.0.1, named
// `erp.test` by a stand-in resolver, with a certificate this process is made to trust.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendWebhook } from '../../../src/platform/notifications/send.ts';
import type { BaseLookup } from '../../../src/platform/notifications/ssrf-guard.ts';

const owner = 'accaaaaaaaaaaaaaaaaa';
const other = 'accbbbbbbbbbbbbbbbbb';
const caBefore = tls.getCACertificates('default');
let server: https.Server;
let port: number;
let dir: string;
let received = 0;

const erpDns: BaseLookup = (_hostname, _options, callback) =>
  callback(null, [{ address: '127.0.0.1', family: 4 }]);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobro-tls-'));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=erp.test',
    '-addext',
    'subjectAltName=DNS:erp.test',
    '-keyout',
    key,
    '-out',
    cert,
  ]);
  const certPem = fs.readFileSync(cert, 'utf8');
  tls.setDefaultCACertificates([...caBefore, certPem]);
  server = https.createServer({ key: fs.readFileSync(key), cert: certPem }, (req, res) => {
    received += 1;
    req.resume();
    req.on('end', () => res.end('internal answer'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  tls.setDefaultCACertificates(caBefore);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('connections to an origin trusted for one account', () => {
  it("are not reused for another account's callback", async () => {
    const url = `https://erp.test:${port}/cobro`;
    const policy = {
      mode: 'production',
      callbackTrustedOrigins: new Map([[`https://erp.test:${port}`, new Set([owner])]]),
    } as const;
    const send = (accountId: string) =>
      sendWebhook({
        url,
        headers: {},
        body: '{}',
        policy,
        accountId,
        timeoutMs: 2000,
        resolve: erpDns,
      });
    // The owner's callback opens a connection and leaves it idle in the pool.
    expect(await send(owner)).toMatchObject({
      statusCode: 200,
      responseExcerpt: 'internal answer',
    });
    expect(received).toBe(1);
    const refused = await send(other);
    expect(refused).toMatchObject({ statusCode: null, responseExcerpt: null });
    expect(refused.error).toMatch(
      /^refused: erp\.test resolves to 127\.0\.0\.1, a loopback address/,
    );
    expect(received).toBe(1);
    // The owner's next one still goes, on its pool.
    expect(await send(owner)).toMatchObject({ statusCode: 200 });
    expect(received).toBe(2);
  });
});
